// The payment-confirmed e-mail for an on-chain deposit. The deposits module emits `deposit.confirmed`
// after its transaction commits; this subscription (wired in buildApp) queues the mail. The dedupe key is
// the deposit id, so a repeated event never mails twice.
import type { AppDeps } from '../../deps.js';
import { creditsToUsdc } from '../../lib/money.js';
import { enqueueEmail } from './outbox.js';
import { loadRecipient } from './recipients.js';
import { renderMail } from './render.js';

const usdc = (credits: bigint) => `${creditsToUsdc(credits)} USDC`;

export function subscribeDepositMails(deps: AppDeps, onError: (err: unknown) => void): () => void {
  const handler = (e: {
    id: string;
    accountId: string;
    txHash: string;
    amountCredits: bigint;
    newBalanceCredits: bigint;
  }) => {
    void (async () => {
      const to = await loadRecipient(deps.db.orm, e.accountId);
      if (!to) return;
      const publicUrl = deps.config.publicUrl;
      await enqueueEmail(deps.db.orm, {
        kind: 'payment_confirmed',
        to: to.email,
        accountId: to.id,
        dedupeKey: `payment_confirmed:${e.id}`,
        now: deps.clock.now(),
        ...renderMail(publicUrl, {
          subject: `Payment confirmed: ${usdc(e.amountCredits)} deposited`,
          intro: ['Your USDC deposit is confirmed on-chain and the credits are on your balance.'],
          facts: [
            ['Amount deposited', usdc(e.amountCredits)],
            ['Credits added', `${e.amountCredits} credits`],
            ['New balance', `${e.newBalanceCredits} credits (${usdc(e.newBalanceCredits)})`],
            ['Transaction', e.txHash],
            ['Deposit', e.id],
          ],
          links: [{ label: 'Wallet history', url: `${publicUrl}/v1/wallet/history?type=deposit` }],
        }),
      });
    })().catch(onError);
  };
  deps.events.on('deposit.confirmed', handler);
  return () => deps.events.off('deposit.confirmed', handler);
}
