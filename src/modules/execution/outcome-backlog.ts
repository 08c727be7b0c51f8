// Outcomes of answered calls that could not be written on `calls` (the group write failed for good, e.g.
// a row the statement keeps refusing): kept in `call_outcome_backlog`, so the sweeper can tell a call that
// was answered (record its outcome: the charge stands) from one whose instance died (refund it).
import { sql } from 'drizzle-orm';
import { type Database, type Executor, rows, toDate } from '../../db/index.js';
import { type CallOutcome, type CallResultRecord, settleChargedCalls } from '../ledger/index.js';

/** Keeps the outcomes for the sweeper, in one statement; a call already kept keeps its first outcome. */
export async function keepOutcomes(ex: Executor, records: readonly CallResultRecord[]): Promise<void> {
  if (records.length === 0) return;
  const values = records.map(
    (r) =>
      sql`(${r.callId}, ${r.outcome}, ${r.providerStatus}::int, ${r.latencyMs}::int, ${r.finishedAt.toISOString()}::timestamptz,
           ${r.responseStatus ?? null}::int, ${r.responseBody ?? null}::text)`,
  );
  await ex.execute(
    sql`INSERT INTO call_outcome_backlog
          (call_id, outcome, provider_status, latency_ms, finished_at, response_status, response_body)
        VALUES ${sql.join(values, sql`, `)}
        ON CONFLICT (call_id) DO NOTHING`,
  );
}

interface BacklogRow {
  call_id: string;
  outcome: CallOutcome;
  provider_status: number | null;
  latency_ms: number | null;
  finished_at: string | Date;
  response_status: number | null;
  response_body: string | null;
}

const BATCH = 200;

/**
 * Writes kept outcomes on their calls (only calls still pending are touched) and drops the rows whose
 * call has left `pending`. Returns how many calls were settled. Throws when the write fails again: the
 * rows stay, and their calls are never refunded as abandoned meanwhile.
 */
export async function recordKeptOutcomes(db: Database): Promise<number> {
  const kept = await rows<BacklogRow>(
    db.orm,
    sql`SELECT call_id, outcome, provider_status, latency_ms, finished_at, response_status, response_body
        FROM call_outcome_backlog ORDER BY created_at LIMIT ${BATCH}`,
  );
  if (kept.length === 0) return 0;
  const settled = await settleChargedCalls(
    db,
    kept.map((k) => ({
      callId: k.call_id,
      outcome: k.outcome,
      providerStatus: k.provider_status,
      latencyMs: k.latency_ms,
      finishedAt: toDate(k.finished_at),
      ...(k.response_status !== null ? { responseStatus: k.response_status } : {}),
      ...(k.response_body !== null ? { responseBody: k.response_body } : {}),
    })),
  );
  const ids = kept.map((k) => k.call_id);
  await db.orm.execute(
    sql`DELETE FROM call_outcome_backlog b USING calls c
        WHERE b.call_id = c.id AND c.status <> 'pending'
          AND b.call_id IN (${sql.join(
            ids.map((id) => sql`${id}`),
            sql`, `,
          )})`,
  );
  return settled;
}
