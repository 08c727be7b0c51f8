// The "key budget reached" e-mail: a call through an agent key (a key with a spending policy) was refused
// by the key's daily or total budget. The owner learns which key stopped and why, at most once per key
// per UTC day however often the agent retries (an agent looping on 402 must not flood the inbox).
// Execution raises the `key-limit.reached` hook in its own committing transaction; the mail names the key
// by its name and public prefix only, never the secret.
import { sql } from 'drizzle-orm';
import { type Executor, one } from '../../db/index.js';
import type { AppDeps, DomainHooks } from '../../deps.js';
import { creditsAndUsdc, usdc } from './messages.js';
import { enqueueEmail } from './outbox.js';
import { loadRecipient, prefEnabled } from './recipients.js';
import { type MailContent, renderMail } from './render.js';

type KeyLimitReached = DomainHooks['key-limit.reached'];

export function keyLimitReachedMail(
  publicUrl: string,
  p: { keyName: string; keyPrefix: string; keyId: string } & Omit<KeyLimitReached, 'accountId' | 'keyId'>,
): MailContent {
  const daily = p.limitType === 'key_daily';
  const budget = daily ? 'daily budget' : 'total budget';
  return {
    subject: `API key "${p.keyName}" reached its ${budget} (${usdc(p.limitCredits)})`,
    intro: [
      `A call through API key "${p.keyName}" (${p.keyPrefix}...) was refused on ${p.day} because it would exceed the key's ${budget}. Paid calls with this key are refused with HTTP 402 (SVC-CREDIT-002) ${
        daily ? 'until midnight UTC' : 'from now on'
      }, unless you raise the budget. Your other keys are not affected.`,
    ],
    facts: [
      ['Key', `${p.keyName} (${p.keyPrefix}...)`],
      ['Key id', p.keyId],
      [daily ? 'Daily budget' : 'Total budget', creditsAndUsdc(p.limitCredits)],
      [daily ? 'Spent today (UTC)' : 'Spent in total', creditsAndUsdc(p.spentCredits)],
      ['Day (UTC)', p.day],
    ],
    outro: ['This mail is sent at most once per key per UTC day.'],
    links: [
      { label: 'Your keys, their budgets and usage', url: `${publicUrl}/v1/keys` },
      { label: "Change the key's policy (PUT)", url: `${publicUrl}/v1/keys/${p.keyId}/policy` },
    ],
    prefKey: 'keyLimitReached',
  };
}

/** Handler of `key-limit.reached`: queues the mail unless the owner switched it off or got it today. */
export async function onKeyLimitReached(ex: Executor, deps: AppDeps, e: KeyLimitReached): Promise<void> {
  const to = await loadRecipient(ex, e.accountId);
  if (!to || !prefEnabled(to.email_prefs, 'keyLimitReached')) return;
  const key = await one<{ name: string; prefix: string }>(
    ex,
    sql`SELECT name, prefix FROM api_keys WHERE id = ${e.keyId} AND account_id = ${e.accountId}`,
  );
  if (!key) return;
  await enqueueEmail(ex, {
    kind: 'key_limit_reached',
    to: to.email,
    accountId: to.id,
    dedupeKey: `key_limit_reached:${e.keyId}:${e.day}`,
    now: deps.clock.now(),
    ...renderMail(
      deps.config.publicUrl,
      keyLimitReachedMail(deps.config.publicUrl, { ...e, keyName: key.name, keyPrefix: key.prefix }),
    ),
  });
}
