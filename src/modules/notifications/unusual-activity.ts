// Unusual activity (off by default): the `unusual-activity` job compares each API key's paid calls in the
// last hour with its rolling 7-day average per hour, from the call log. A key alerts when the window has
// at least UNUSUAL_MIN_CALLS calls (so tiny volumes never alert) and more than 3x the average, at most once
// per key per 4 hours (cooldown row in notification_state, taken in the same transaction as the mail).
import { sql } from 'drizzle-orm';
import { one, rows, toDate } from '../../db/index.js';
import type { AppDeps } from '../../deps.js';
import { unusualActivityMail } from './messages.js';
import { enqueueEmail } from './outbox.js';
import { takeCooldown } from './recipients.js';
import { renderMail } from './render.js';

export const UNUSUAL_WINDOW_MS = 60 * 60_000;
export const UNUSUAL_HISTORY_MS = 7 * 24 * 60 * 60_000;
export const UNUSUAL_FACTOR = 3;
export const UNUSUAL_MIN_CALLS = 30;
export const UNUSUAL_COOLDOWN_MS = 4 * 60 * 60_000;

interface KeyUsage {
  account_id: string;
  email: string;
  api_key_id: string;
  window_calls: bigint;
  window_credits: bigint;
  history_calls: bigint;
  first_history_call: string | null;
}

/**
 * Average calls per window over the history before the window. The history starts at the key's first call
 * in the last 7 days (a 2-day-old key is judged on 2 days, not diluted over 7), and counts at least one
 * window. No history at all gives 0: a new key that bursts above the floor is unusual.
 */
function averagePerWindow(u: KeyUsage, windowStart: Date): number {
  if (u.history_calls === 0n || u.first_history_call === null) return 0;
  const first = toDate(u.first_history_call).getTime();
  const span = Math.max(UNUSUAL_WINDOW_MS, windowStart.getTime() - first);
  return (Number(u.history_calls) * UNUSUAL_WINDOW_MS) / span;
}

/** The job `unusual-activity`: queues alerts for spiking keys; returns how many. */
export async function detectUnusualActivity(deps: AppDeps): Promise<number> {
  const now = deps.clock.now();
  const windowStart = new Date(now.getTime() - UNUSUAL_WINDOW_MS);
  const historyStart = new Date(windowStart.getTime() - UNUSUAL_HISTORY_MS);
  const usage = await rows<KeyUsage>(
    deps.db.orm,
    sql`SELECT c.account_id, a.email, c.api_key_id,
               count(*) FILTER (WHERE c.created_at >= ${windowStart.toISOString()}::timestamptz) AS window_calls,
               coalesce(sum(c.price_credits) FILTER (WHERE c.created_at >= ${windowStart.toISOString()}::timestamptz), 0)::bigint AS window_credits,
               count(*) FILTER (WHERE c.created_at < ${windowStart.toISOString()}::timestamptz) AS history_calls,
               min(c.created_at) FILTER (WHERE c.created_at < ${windowStart.toISOString()}::timestamptz) AS first_history_call
        FROM calls c JOIN accounts a ON a.id = c.account_id
        WHERE a.email IS NOT NULL AND a.status = 'active' AND (a.email_prefs ->> 'unusualActivity') = 'true'
          AND c.api_key_id IS NOT NULL
          AND c.created_at >= ${historyStart.toISOString()}::timestamptz AND c.created_at < ${now.toISOString()}::timestamptz
        GROUP BY c.account_id, a.email, c.api_key_id
        HAVING count(*) FILTER (WHERE c.created_at >= ${windowStart.toISOString()}::timestamptz) >= ${UNUSUAL_MIN_CALLS}`,
  );
  let queued = 0;
  for (const u of usage) {
    const average = averagePerWindow(u, windowStart);
    if (Number(u.window_calls) <= UNUSUAL_FACTOR * average) continue;
    const sent = await deps.db.orm.transaction(async (tx) => {
      if (
        !(await takeCooldown(tx, u.account_id, 'unusual_activity', u.api_key_id, now, UNUSUAL_COOLDOWN_MS))
      ) {
        return false;
      }
      const key = await one<{ name: string; prefix: string }>(
        tx,
        sql`SELECT name, prefix FROM api_keys WHERE id = ${u.api_key_id}`,
      );
      const top = await rows<{ provider_id: string; endpoint_slug: string; calls: bigint }>(
        tx,
        sql`SELECT provider_id, endpoint_slug, count(*) AS calls FROM calls
            WHERE api_key_id = ${u.api_key_id} AND created_at >= ${windowStart.toISOString()}::timestamptz
              AND created_at < ${now.toISOString()}::timestamptz
            GROUP BY provider_id, endpoint_slug ORDER BY count(*) DESC, provider_id, endpoint_slug LIMIT 5`,
      );
      const content = unusualActivityMail(deps.config.publicUrl, {
        keyName: key?.name ?? u.api_key_id,
        keyPrefix: key?.prefix ?? '',
        windowMinutes: UNUSUAL_WINDOW_MS / 60_000,
        windowCalls: Number(u.window_calls),
        windowCredits: u.window_credits,
        averageCalls: average,
        topEndpoints: top.map((t) => ({
          capability: `${t.provider_id}/${t.endpoint_slug}`,
          calls: Number(t.calls),
        })),
      });
      return enqueueEmail(tx, {
        kind: 'unusual_activity',
        to: u.email,
        accountId: u.account_id,
        dedupeKey: `unusual_activity:${u.api_key_id}:${now.getTime()}`,
        now,
        ...renderMail(deps.config.publicUrl, content),
      });
    });
    if (sent) queued++;
  }
  return queued;
}
