// The e-mail outbox: enqueue in the caller's transaction; delivery happens in a background job
// (delivery.ts). Rows are claimed with a lease so several instances never send the same row twice.
import { sql } from 'drizzle-orm';
import { type Executor, one, rows } from '../../db/index.js';
import { newId } from '../../lib/ids.js';

export type EmailKind =
  | 'login_code'
  | 'payment_confirmed'
  | 'low_balance'
  | 'credits_depleted'
  | 'daily_limit_reached'
  | 'key_limit_reached'
  | 'credits_refunded'
  | 'unusual_activity'
  | 'account_suspended'
  | 'daily_summary'
  | 'weekly_summary'
  | 'payout_sent'
  | 'payout_failed'
  /** `svc admin mail-test`: checks the transport. */
  | 'test';

export interface OutgoingEmail {
  kind: EmailKind;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** At most one e-mail per dedupe key, ever (e.g. `payment_confirmed:<paymentId>`). */
  dedupeKey: string;
  accountId?: string;
  /**
   * Service clock time of the event (`deps.clock.now()`). Without it the row is stamped with the database
   * clock and is due at once whatever the service clock says.
   */
  now?: Date;
}

/** Queues an e-mail; returns false when one with the same dedupe key was already queued. */
export async function enqueueEmail(ex: Executor, mail: OutgoingEmail): Promise<boolean> {
  const at = mail.now ? mail.now.toISOString() : null;
  const row = await one<{ id: string }>(
    ex,
    sql`INSERT INTO email_outbox (id, account_id, kind, dedupe_key, to_address, subject, text_body, html_body,
                                  created_at, next_attempt_at)
        VALUES (${newId('mail')}, ${mail.accountId ?? null}, ${mail.kind}, ${mail.dedupeKey}, ${mail.to},
                ${mail.subject}, ${mail.text}, ${mail.html},
                coalesce(${at}::timestamptz, now()), coalesce(${at}::timestamptz, '-infinity'))
        ON CONFLICT (dedupe_key) DO NOTHING RETURNING id`,
  );
  return row !== undefined;
}

export interface ClaimedEmail {
  id: string;
  kind: EmailKind;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string;
  /** Attempts including this one. */
  attempts: number;
}

/**
 * Claims up to `limit` due rows (`next_attempt_at` reached) for this worker. Claiming counts the attempt
 * and pushes `next_attempt_at` out by `leaseMs` in the same statement (SKIP LOCKED), so a concurrent worker
 * skips the row now and only a crashed worker's row comes back, after the lease.
 */
export async function claimDueEmails(
  ex: Executor,
  now: Date,
  limit: number,
  leaseMs: number,
): Promise<ClaimedEmail[]> {
  const nowIso = now.toISOString();
  const leaseUntil = new Date(now.getTime() + leaseMs).toISOString();
  // RETURNING has no order; the outer SELECT restores queue order so that an account's mails arrive in the
  // order of their events.
  return rows<ClaimedEmail>(
    ex,
    sql`WITH claimed AS (
          UPDATE email_outbox o
          SET attempts = o.attempts + 1, next_attempt_at = ${leaseUntil}::timestamptz
          WHERE o.id IN (
            SELECT id FROM email_outbox
            WHERE status = 'pending' AND next_attempt_at <= ${nowIso}::timestamptz
            ORDER BY next_attempt_at, id
            LIMIT ${limit}
            FOR UPDATE SKIP LOCKED)
          RETURNING o.id, o.kind, o.to_address, o.subject, o.text_body, o.html_body, o.attempts, o.created_at)
        SELECT id, kind, to_address, subject, text_body, html_body, attempts FROM claimed ORDER BY created_at, id`,
  );
}

/** Kinds whose body carries a credential meant for the recipient only: not kept once delivered. */
const REDACT_AFTER_SENDING: EmailKind[] = ['login_code'];
const REDACTED = '[removed after delivery]';

export async function markSent(ex: Executor, id: string, now: Date): Promise<void> {
  await ex.execute(
    sql`UPDATE email_outbox SET status = 'sent', sent_at = ${now.toISOString()}::timestamptz, last_error = NULL,
          text_body = CASE WHEN kind IN ${REDACT_AFTER_SENDING} THEN ${REDACTED} ELSE text_body END,
          html_body = CASE WHEN kind IN ${REDACT_AFTER_SENDING} THEN ${REDACTED} ELSE html_body END
        WHERE id = ${id} AND status = 'pending'`,
  );
}

/** Records a failed attempt: retry at `retryAt`, or give up (`failed`) when `retryAt` is null. */
export async function markAttemptFailed(
  ex: Executor,
  id: string,
  error: string,
  retryAt: Date | null,
): Promise<void> {
  await ex.execute(
    retryAt
      ? sql`UPDATE email_outbox SET next_attempt_at = ${retryAt.toISOString()}::timestamptz, last_error = ${error}
            WHERE id = ${id} AND status = 'pending'`
      : sql`UPDATE email_outbox SET status = 'failed', last_error = ${error}
            WHERE id = ${id} AND status = 'pending'`,
  );
}

/** Hands claimed-but-untried rows back, due at `at`, without counting the attempt. */
export async function postponeClaims(ex: Executor, ids: string[], at: Date): Promise<void> {
  if (ids.length === 0) return;
  await ex.execute(
    sql`UPDATE email_outbox SET attempts = attempts - 1, next_attempt_at = ${at.toISOString()}::timestamptz
        WHERE id IN ${ids} AND status = 'pending'`,
  );
}

export interface OutboxSummary {
  counts: { status: string; kind: string; count: number }[];
  undelivered: {
    id: string;
    kind: string;
    to_address: string;
    status: string;
    attempts: number;
    next_attempt_at: string;
    last_error: string | null;
  }[];
}

/** Counts by status and kind, and the 50 oldest rows not delivered yet (operators' view). */
export async function outboxSummary(ex: Executor): Promise<OutboxSummary> {
  const counts = await rows<{ status: string; kind: string; count: number }>(
    ex,
    sql`SELECT status, kind, count(*)::int AS count FROM email_outbox GROUP BY status, kind ORDER BY status, kind`,
  );
  const undelivered = await rows<OutboxSummary['undelivered'][number]>(
    ex,
    sql`SELECT id, kind, to_address, status, attempts, next_attempt_at::text AS next_attempt_at, last_error
        FROM email_outbox WHERE status <> 'sent' ORDER BY created_at LIMIT 50`,
  );
  return { counts, undelivered };
}

/** E-mails waiting to be sent (pending) and given up (failed): the mail queue gauge of /metrics. */
export async function outboxDepth(ex: Executor): Promise<{ pending: number; failed: number }> {
  const r = await rows<{ pending: number; failed: number }>(
    ex,
    sql`SELECT count(*) FILTER (WHERE status = 'pending')::int AS pending,
               count(*) FILTER (WHERE status = 'failed')::int AS failed FROM email_outbox`,
  );
  return { pending: Number(r[0]?.pending ?? 0), failed: Number(r[0]?.failed ?? 0) };
}

/** Puts failed rows (one, or all) back in the queue, due at `now` with a fresh attempt count. */
export async function requeueFailed(ex: Executor, now: Date, id?: string): Promise<number> {
  const requeued = await rows<{ id: string }>(
    ex,
    sql`UPDATE email_outbox SET status = 'pending', attempts = 0, next_attempt_at = ${now.toISOString()}::timestamptz
        WHERE status = 'failed' AND (${id ?? null}::text IS NULL OR id = ${id ?? null}) RETURNING id`,
  );
  return requeued.length;
}
