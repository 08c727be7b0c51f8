// Daily and weekly summaries (off by default). The `email-digests` job looks at the UTC day and the ISO
// week that last ended (service clock) and, for each opted-in account not yet handled for that period,
// marks the period handled and queues the digest in one transaction, so N instances send it once. A
// period without any spend or call is marked but not mailed.
import { type SQL, sql } from 'drizzle-orm';
import { type Executor, rows } from '../../db/index.js';
import type { AppDeps } from '../../deps.js';
import { type DigestFigures, summaryMail } from './messages.js';
import { enqueueEmail } from './outbox.js';
import { type Period, previousIsoWeek, previousUtcDay } from './periods.js';
import { markPeriodHandled, type PrefKey } from './recipients.js';
import { renderMail } from './render.js';

const TOP_PROVIDERS = 5;
const BATCH = 100;
/** Period marks older than this are never consulted again (only the last period is handled). */
const MARK_RETENTION_MS = 40 * 24 * 60 * 60_000;

interface DigestKind {
  kind: 'daily_summary' | 'weekly_summary';
  pref: PrefKey;
  style: 'daily' | 'weekly';
  period: (now: Date) => Period;
  label: (p: Period) => string;
}

const KINDS: DigestKind[] = [
  {
    kind: 'daily_summary',
    pref: 'dailySummary',
    style: 'daily',
    period: previousUtcDay,
    label: (p) => p.key,
  },
  {
    kind: 'weekly_summary',
    pref: 'weeklySummary',
    style: 'weekly',
    period: previousIsoWeek,
    label: (p) => `week ${p.key}`,
  },
];

/** Spend (net of refunds, from the ledger) and calls (from the call log) of one account in a period. */
export async function digestFigures(
  ex: Executor,
  accountId: string,
  period: Period,
  label: string,
): Promise<DigestFigures> {
  const from = period.start.toISOString();
  const to = period.end.toISOString();
  const spend = await rows<{ provider_id: string | null; spent: bigint }>(
    ex,
    sql`SELECT coalesce(e.provider_id, c.provider_id) AS provider_id, sum(-e.amount_credits)::bigint AS spent
        FROM ledger_entries e LEFT JOIN calls c ON c.id = e.call_id
        WHERE e.account_id = ${accountId} AND e.type IN ('debit', 'refund')
          AND e.created_at >= ${from}::timestamptz AND e.created_at < ${to}::timestamptz
        GROUP BY 1`,
  );
  const calls = await rows<{ provider_id: string; calls: bigint; refunded: bigint }>(
    ex,
    sql`SELECT provider_id, count(*) AS calls, count(*) FILTER (WHERE refunded) AS refunded
        FROM calls
        WHERE account_id = ${accountId}
          AND created_at >= ${from}::timestamptz AND created_at < ${to}::timestamptz
        GROUP BY provider_id`,
  );
  const byProvider = new Map<string, { spentCredits: bigint; calls: number }>();
  const entry = (id: string) => {
    const found = byProvider.get(id) ?? { spentCredits: 0n, calls: 0 };
    byProvider.set(id, found);
    return found;
  };
  let spentCredits = 0n;
  for (const s of spend) {
    spentCredits += s.spent;
    entry(s.provider_id ?? 'unknown').spentCredits += s.spent;
  }
  let callCount = 0;
  let refundedCalls = 0;
  for (const c of calls) {
    callCount += Number(c.calls);
    refundedCalls += Number(c.refunded);
    entry(c.provider_id).calls += Number(c.calls);
  }
  const ids = [...byProvider.keys()];
  const names = new Map(
    ids.length === 0
      ? []
      : (
          await rows<{ id: string; name: string }>(ex, sql`SELECT id, name FROM providers WHERE id IN ${ids}`)
        ).map((p) => [p.id, p.name]),
  );
  const providers = [...byProvider.entries()]
    .map(([providerId, v]) => ({ providerId, providerName: names.get(providerId) ?? providerId, ...v }))
    .sort((a, b) =>
      a.spentCredits === b.spentCredits ? b.calls - a.calls : a.spentCredits > b.spentCredits ? -1 : 1,
    )
    .slice(0, TOP_PROVIDERS);
  return {
    periodLabel: label,
    from: period.firstDay,
    to: period.lastDay,
    spentCredits,
    calls: callCount,
    refundedCalls,
    providers,
  };
}

function prefIsOn(pref: PrefKey): SQL {
  // Off by default: only an explicit true opts in.
  return sql`(email_prefs ->> ${pref}) = 'true'`;
}

/** The job `email-digests`: queues the digests of the last ended day and ISO week; returns how many. */
export async function queueDigests(deps: AppDeps): Promise<number> {
  const now = deps.clock.now();
  let queued = 0;
  for (const d of KINDS) {
    const period = d.period(now);
    for (;;) {
      const due = await rows<{ id: string; email: string }>(
        deps.db.orm,
        sql`SELECT id, email FROM accounts a
            WHERE email IS NOT NULL AND status = 'active' AND ${prefIsOn(d.pref)}
              AND NOT EXISTS (SELECT 1 FROM notification_state s
                              WHERE s.account_id = a.id AND s.kind = ${d.kind} AND s.scope = ${period.key})
            ORDER BY id LIMIT ${BATCH}`,
      );
      for (const account of due) {
        const sent = await deps.db.orm.transaction(async (tx) => {
          if (!(await markPeriodHandled(tx, account.id, d.kind, period.key, now))) return false;
          const figures = await digestFigures(tx, account.id, period, d.label(period));
          if (figures.calls === 0 && figures.spentCredits === 0n) return false;
          return enqueueEmail(tx, {
            kind: d.kind,
            to: account.email,
            accountId: account.id,
            dedupeKey: `${d.kind}:${account.id}:${period.key}`,
            now,
            ...renderMail(deps.config.publicUrl, summaryMail(deps.config.publicUrl, d.style, figures)),
          });
        });
        if (sent) queued++;
      }
      if (due.length < BATCH) break;
    }
  }
  await deps.db.orm.execute(
    sql`DELETE FROM notification_state WHERE kind IN ('daily_summary', 'weekly_summary')
        AND last_sent_at < ${new Date(now.getTime() - MARK_RETENTION_MS).toISOString()}::timestamptz`,
  );
  return queued;
}
