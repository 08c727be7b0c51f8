// The e-mail outbox: enqueue in the caller's transaction; delivery happens in a background job.
import { sql } from 'drizzle-orm';
import { type Executor, one } from '../../db/index.js';
import { newId } from '../../lib/ids.js';

export type EmailKind =
  | 'login_code'
  | 'payment_confirmed'
  | 'low_balance'
  | 'credits_depleted'
  | 'daily_limit_reached'
  | 'credits_refunded'
  | 'unusual_activity'
  | 'account_suspended'
  | 'daily_summary'
  | 'weekly_summary';

export interface OutgoingEmail {
  kind: EmailKind;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** At most one e-mail per dedupe key, ever (e.g. `payment_confirmed:<paymentId>`). */
  dedupeKey: string;
  accountId?: string;
}

/** Queues an e-mail; returns false when one with the same dedupe key was already queued. */
export async function enqueueEmail(ex: Executor, mail: OutgoingEmail): Promise<boolean> {
  const row = await one<{ id: string }>(
    ex,
    sql`INSERT INTO email_outbox (id, account_id, kind, dedupe_key, to_address, subject, text_body, html_body)
        VALUES (${newId('mail')}, ${mail.accountId ?? null}, ${mail.kind}, ${mail.dedupeKey}, ${mail.to},
                ${mail.subject}, ${mail.text}, ${mail.html})
        ON CONFLICT (dedupe_key) DO NOTHING RETURNING id`,
  );
  return row !== undefined;
}
