// Background delivery of the e-mail outbox. Each run claims due rows (lease + SKIP LOCKED, so N instances
// never send one row twice), sends them through deps.mailer, and marks each sent or schedules a retry with
// exponential backoff. A dead SMTP server only delays mail: transient failures are retried without limit.

import { smtpReplyCode } from '../../adapters/mailer.js';
import type { AppDeps } from '../../deps.js';
import { type ClaimedEmail, claimDueEmails, markAttemptFailed, markSent, postponeClaims } from './outbox.js';

/** A claimed row is invisible to other workers this long; only a crashed worker lets it lapse. */
export const DELIVERY_LEASE_MS = 10 * 60_000;
const BATCH = 20;
const BACKOFF_BASE_MS = 30_000;
const BACKOFF_MAX_MS = 60 * 60_000;
/** Attempts after which a permanent (5xx) refusal marks the row failed. */
const PERMANENT_FAILURE_ATTEMPTS = 5;

/** Delay before retry number `attempts + 1`: 30 s, 1 min, 2 min, ... capped at 1 hour. */
export function retryDelayMs(attempts: number): number {
  return Math.min(BACKOFF_BASE_MS * 2 ** Math.max(0, attempts - 1), BACKOFF_MAX_MS);
}

function retryAt(deps: AppDeps, attempts: number): Date {
  return new Date(deps.clock.now().getTime() + retryDelayMs(attempts));
}

function messageIdDomain(publicUrl: string): string {
  try {
    return new URL(publicUrl).hostname || 'svc.local';
  } catch {
    return 'svc.local';
  }
}

/** Sends one claimed row; returns the error, or undefined when the server accepted it. */
async function trySend(deps: AppDeps, domain: string, mail: ClaimedEmail): Promise<unknown> {
  try {
    await deps.mailer.send({
      messageId: `<${mail.id}@${domain}>`,
      to: mail.to_address,
      subject: mail.subject,
      text: mail.text_body,
      html: mail.html_body,
      kind: mail.kind,
    });
    return undefined;
  } catch (err) {
    return err ?? new Error('send failed');
  }
}

/** Sends every due outbox row (in batches); returns how many were sent. The job `email-delivery`. */
export async function deliverDueEmails(deps: AppDeps): Promise<number> {
  const domain = messageIdDomain(deps.config.publicUrl);
  let sent = 0;
  for (;;) {
    const batch = await claimDueEmails(deps.db.orm, deps.clock.now(), BATCH, DELIVERY_LEASE_MS);
    for (const [i, mail] of batch.entries()) {
      const failure = await trySend(deps, domain, mail);
      if (!failure) {
        await markSent(deps.db.orm, mail.id, deps.clock.now());
        sent++;
        continue;
      }
      const error = (failure instanceof Error ? failure.message : String(failure)).slice(0, 500);
      const reply = smtpReplyCode(failure);
      if (reply === undefined) {
        // No SMTP reply at all (server down, DNS, timeout): the rest of the batch would fail the same way,
        // so it waits with this row instead of hammering the server; its attempts are not counted.
        const at = retryAt(deps, mail.attempts);
        await markAttemptFailed(deps.db.orm, mail.id, error, at);
        await postponeClaims(
          deps.db.orm,
          batch.slice(i + 1).map((m) => m.id),
          at,
        );
        return sent;
      }
      // The server answered about this message: 4xx (e.g. greylisting) is retried with backoff; 5xx (e.g.
      // unknown mailbox) a few times, then the row is given up as failed. Other rows go on.
      const giveUp = reply >= 500 && mail.attempts >= PERMANENT_FAILURE_ATTEMPTS;
      await markAttemptFailed(deps.db.orm, mail.id, error, giveUp ? null : retryAt(deps, mail.attempts));
    }
    if (batch.length < BATCH) return sent;
  }
}
