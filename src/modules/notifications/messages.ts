// The words of each notification (docs/notifications.md). Amounts go through src/lib/money.ts; no secret is
// ever put in a mail (API keys appear by name and public prefix only).
import { creditsToUsdc } from '../../lib/money.js';
import { formatUsdCents, type MailContent } from './render.js';

export const usdc = (credits: bigint) => `${creditsToUsdc(credits)} USDC`;
export const creditsAndUsdc = (credits: bigint) => `${credits} credits (${usdc(credits)})`;

export function paymentConfirmedMail(
  publicUrl: string,
  p: { paymentId: string; amountUsdCents: number; credits: bigint; newBalance: bigint; receiptUrl: string },
): MailContent {
  return {
    subject: `Payment confirmed: ${formatUsdCents(p.amountUsdCents)} added to your balance`,
    intro: ['Thank you. Your card payment went through and the credits are on your balance.'],
    facts: [
      ['Amount paid', formatUsdCents(p.amountUsdCents)],
      ['Credits added', creditsAndUsdc(p.credits)],
      ['New balance', creditsAndUsdc(p.newBalance)],
      ['Payment', p.paymentId],
    ],
    links: [
      { label: 'Receipt', url: p.receiptUrl },
      { label: 'Your payments', url: `${publicUrl}/v1/billing/payments` },
    ],
  };
}

export function lowBalanceMail(publicUrl: string, p: { balance: bigint; threshold: bigint }): MailContent {
  return {
    subject: `Low balance: ${usdc(p.balance)} left`,
    intro: [`Your balance dropped below your alert threshold of ${usdc(p.threshold)}.`],
    facts: [
      ['Balance', creditsAndUsdc(p.balance)],
      ['Alert threshold', creditsAndUsdc(p.threshold)],
    ],
    outro: ['Top up before it runs out so that your agents keep working.'],
    links: [
      { label: 'Top up (POST)', url: `${publicUrl}/v1/billing/checkout` },
      { label: 'Balance', url: `${publicUrl}/v1/billing/balance` },
    ],
    prefKey: 'lowBalance',
  };
}

export function creditsDepletedMail(publicUrl: string): MailContent {
  return {
    subject: 'Your credits are used up: paid calls are failing',
    intro: [
      'Your balance has reached zero. Paid calls are refused with HTTP 402 (SVC-PAY-001) until you add credits.',
    ],
    facts: [['Balance', creditsAndUsdc(0n)]],
    links: [
      { label: 'Top up (POST)', url: `${publicUrl}/v1/billing/checkout` },
      { label: 'Balance', url: `${publicUrl}/v1/billing/balance` },
    ],
  };
}

export function dailyLimitReachedMail(
  publicUrl: string,
  p: { limit: bigint; spent: bigint; day: string },
): MailContent {
  return {
    subject: `Daily spend limit reached (${usdc(p.limit)})`,
    intro: [
      `A call was refused on ${p.day} because it would exceed your daily spend limit. Paid calls are refused with HTTP 402 (SVC-CREDIT-002) until midnight UTC, or until you raise the limit.`,
    ],
    facts: [
      ['Daily limit', creditsAndUsdc(p.limit)],
      ['Spent today (UTC)', creditsAndUsdc(p.spent)],
      ['Day (UTC)', p.day],
    ],
    outro: ['This mail is sent at most once per UTC day.'],
    links: [{ label: 'Change your limits (PUT)', url: `${publicUrl}/v1/billing/limits` }],
    prefKey: 'dailyLimitReached',
  };
}

/** Words for the execution module's refund reasons (src/modules/ledger/calls.ts RefundReason). */
const REFUND_REASONS: Record<string, string> = {
  provider_5xx: 'the provider answered with a server error (HTTP 5xx)',
  timeout: 'the provider did not answer in time',
  connection: 'the provider could not be reached',
  bad_response: 'the provider answered with an unusable response',
  abandoned: 'the call was interrupted before it completed',
};

export function creditsRefundedMail(
  publicUrl: string,
  p: { callId: string; capability: string; credits: bigint; reason: string },
): MailContent {
  return {
    subject: `Refund: ${usdc(p.credits)} for a failed call to ${p.capability}`,
    intro: ['A call failed on the provider side, so its cost went back to your balance automatically.'],
    facts: [
      ['Credits refunded', creditsAndUsdc(p.credits)],
      ['Capability', p.capability],
      ['Reason', REFUND_REASONS[p.reason] ?? p.reason],
      ['Call', p.callId],
    ],
    outro: ['Consider trying another provider for this capability.'],
    links: [{ label: 'Transactions', url: `${publicUrl}/v1/billing/transactions?type=refund` }],
    prefKey: 'creditsRefunded',
  };
}

export interface ActivitySpike {
  keyName: string;
  keyPrefix: string;
  windowMinutes: number;
  windowCalls: number;
  windowCredits: bigint;
  averageCalls: number;
  topEndpoints: { capability: string; calls: number }[];
}

export function unusualActivityMail(publicUrl: string, s: ActivitySpike): MailContent {
  const ratio = s.averageCalls > 0 ? `${(s.windowCalls / s.averageCalls).toFixed(1)}x` : 'no earlier use';
  return {
    subject: `Unusual activity on API key "${s.keyName}"`,
    intro: [
      `API key "${s.keyName}" (${s.keyPrefix}...) made ${s.windowCalls} paid calls in the last ${s.windowMinutes} minutes, far above its usual rate. If this was not you or your agent, revoke the key and set a spend limit.`,
    ],
    facts: [
      ['Key', `${s.keyName} (${s.keyPrefix}...)`],
      [`Calls in the last ${s.windowMinutes} min`, String(s.windowCalls)],
      [`Average per ${s.windowMinutes} min (7 days)`, s.averageCalls.toFixed(1)],
      ['Ratio', ratio],
      ['Spent in the window', creditsAndUsdc(s.windowCredits)],
    ],
    table: {
      caption: 'Most called in the window',
      headers: ['Capability', 'Calls'],
      rows: s.topEndpoints.map((t) => [t.capability, String(t.calls)]),
    },
    links: [
      { label: 'Review your API keys', url: `${publicUrl}/v1/keys` },
      { label: 'Set spend limits (PUT)', url: `${publicUrl}/v1/billing/limits` },
    ],
    prefKey: 'unusualActivity',
  };
}

export function accountSuspendedMail(publicUrl: string, p: { reason: string | null }): MailContent {
  return {
    subject: 'Your account has been suspended',
    intro: [
      'An administrator suspended your account. Every API call made with its credentials is refused with HTTP 403 (SVC-AUTH-004) until the suspension is lifted. Your balance is kept.',
    ],
    facts: [['Reason', p.reason ?? 'not given']],
    outro: ['If you think this is a mistake, reply to this e-mail.'],
    links: [{ label: 'Service', url: publicUrl }],
  };
}

export interface DigestFigures {
  periodLabel: string;
  from: string;
  to: string;
  spentCredits: bigint;
  calls: number;
  refundedCalls: number;
  providers: { providerId: string; providerName: string; spentCredits: bigint; calls: number }[];
}

/** Refund rate as a percentage with one decimal ("12.5%"), "0.0%" without calls. */
export function refundRate(calls: number, refunded: number): string {
  return `${calls === 0 ? '0.0' : ((refunded * 100) / calls).toFixed(1)}%`;
}

export function summaryMail(publicUrl: string, kind: 'daily' | 'weekly', d: DigestFigures): MailContent {
  const title = kind === 'daily' ? 'Daily summary' : 'Weekly summary';
  return {
    subject: `${title} for ${d.periodLabel}: ${usdc(d.spentCredits)} spent in ${d.calls} calls`,
    intro: [`Your usage for ${d.periodLabel} (UTC, ${d.from} to ${d.to}). Amounts are net of refunds.`],
    facts: [
      ['Total spent', creditsAndUsdc(d.spentCredits)],
      ['Calls', String(d.calls)],
      ['Refunded calls', String(d.refundedCalls)],
      ['Refund rate', refundRate(d.calls, d.refundedCalls)],
    ],
    table: {
      caption: 'Top providers by spend',
      headers: ['Provider', 'Spent', 'Calls'],
      rows: d.providers.map((p) => [
        p.providerName === p.providerId ? p.providerId : `${p.providerName} (${p.providerId})`,
        usdc(p.spentCredits),
        String(p.calls),
      ]),
    },
    links: [{ label: 'Usage report', url: `${publicUrl}/v1/billing/usage?from=${d.from}&to=${d.to}` }],
    prefKey: kind === 'daily' ? 'dailySummary' : 'weeklySummary',
  };
}

export function payoutSentMail(
  publicUrl: string,
  p: {
    settlementId: string;
    providerId: string;
    amountCredits: bigint;
    grossCredits: bigint;
    feeCredits: bigint;
    walletAddress: string;
    txHash: string;
  },
): MailContent {
  return {
    subject: `Payout sent: ${usdc(p.amountCredits)} for ${p.providerId}`,
    intro: ['Your earnings were transferred to your payout wallet and the transfer is confirmed on-chain.'],
    facts: [
      ['Amount paid', usdc(p.amountCredits)],
      ['Gross earnings this period', usdc(p.grossCredits)],
      ['Platform fee', usdc(p.feeCredits)],
      ['Provider', p.providerId],
      ['Payout wallet', p.walletAddress],
      ['Transaction', p.txHash],
      ['Settlement', p.settlementId],
    ],
    links: [{ label: 'Your settlements', url: `${publicUrl}/v1/provider/settlements` }],
  };
}

export function payoutFailedMail(
  publicUrl: string,
  p: { settlementId: string; providerId: string; amountCredits: bigint; reason: string },
): MailContent {
  return {
    subject: `Payout failed: ${usdc(p.amountCredits)} for ${p.providerId}`,
    intro: [
      'A payout of your earnings could not be completed. Nothing was lost: the earnings stay recorded and our operators have been alerted to pay them.',
    ],
    facts: [
      ['Amount', usdc(p.amountCredits)],
      ['Provider', p.providerId],
      ['Reason', p.reason],
      ['Settlement', p.settlementId],
    ],
    links: [{ label: 'Your settlements', url: `${publicUrl}/v1/provider/settlements` }],
  };
}
