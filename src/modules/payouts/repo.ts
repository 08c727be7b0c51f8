// SQL of the payouts module: the earnings condition on `calls`, the `settlements` rows and the daily run
// schedule (`settlement_runs`). Only this module writes those tables and `calls.settlement_id`.
import { type SQL, sql } from 'drizzle-orm';
import { type Executor, one, rows, toIso } from '../../db/index.js';

export type SettlementStatus = 'pending' | 'submitted' | 'confirmed' | 'failed' | 'carried_over';

export interface SettlementRow {
  id: string;
  provider_id: string;
  account_id: string;
  period_start: unknown;
  period_end: unknown;
  total_calls: number;
  gross_credits: bigint;
  fee_bps: number;
  fee_credits: bigint;
  net_credits: bigint;
  carried_in_credits: bigint;
  amount_credits: bigint;
  status: SettlementStatus;
  paid_by_settlement_id: string | null;
  wallet_address: string | null;
  platform_tx_id: string | null;
  tx_hash: string | null;
  block_number: bigint | null;
  failure_reason: string | null;
  attempt: number;
  history_seq: bigint | null;
  created_at: unknown;
  confirmed_at: unknown;
}

/**
 * A call that earns its price for its provider's owner: charged and not refunded with a final outcome
 * (success or 4xx), paid in credits by another account than the owner, or paid with a settled x402
 * payment; not yet in a settlement. Written against the bare `calls` table name.
 */
export function earningCalls(ownerAccountId: string): SQL {
  return sql`calls.settlement_id IS NULL
    AND calls.status IN ('success', 'client_error') AND NOT calls.refunded AND calls.finished_at IS NOT NULL
    AND (calls.account_id IS NULL OR calls.account_id <> ${ownerAccountId})
    AND (calls.x402_payment_id IS NULL OR EXISTS (
      SELECT 1 FROM x402_payments x WHERE x.id = calls.x402_payment_id AND x.status = 'settled'))`;
}

/** Marks the provider's earning calls finished before `cutoff` as part of `settlementId`; sums them. */
export async function claimEarnedCalls(
  ex: Executor,
  p: { settlementId: string; providerId: string; ownerAccountId: string; cutoff: Date },
): Promise<{ calls: number; gross: bigint; first: string | null }> {
  // One UPDATE: a call another run claimed meanwhile is re-checked and skipped, so it is never counted twice.
  const row = await one<{ calls: number; gross: bigint | null; first: unknown }>(
    ex,
    sql`WITH claimed AS (
          UPDATE calls SET settlement_id = ${p.settlementId}
          WHERE calls.provider_id = ${p.providerId} AND calls.finished_at < ${p.cutoff.toISOString()}
            AND ${earningCalls(p.ownerAccountId)}
          RETURNING price_credits, finished_at)
        SELECT count(*)::int AS calls, sum(price_credits)::bigint AS gross, min(finished_at) AS first FROM claimed`,
  );
  return {
    calls: Number(row?.calls ?? 0),
    gross: BigInt(row?.gross ?? 0n),
    first: row?.first ? toIso(row.first) : null,
  };
}

/**
 * Locks the provider's carried-over settlements not yet included in a payout, of its current owner only
 * (if the listing changed hands, what the previous owner earned is never paid to the new one).
 */
export async function lockCarriedOver(
  ex: Executor,
  providerId: string,
  ownerAccountId: string,
): Promise<{ id: string; net_credits: bigint }[]> {
  return rows(
    ex,
    sql`SELECT id, net_credits FROM settlements
        WHERE provider_id = ${providerId} AND account_id = ${ownerAccountId} AND status = 'carried_over'
          AND paid_by_settlement_id IS NULL
        ORDER BY created_at FOR UPDATE`,
  );
}

export async function lastPeriodEnd(ex: Executor, providerId: string): Promise<string | null> {
  const row = await one<{ end: unknown }>(
    ex,
    sql`SELECT max(period_end) AS end FROM settlements WHERE provider_id = ${providerId}`,
  );
  return row?.end ? toIso(row.end) : null;
}

export async function insertSettlement(
  ex: Executor,
  s: {
    id: string;
    providerId: string;
    accountId: string;
    periodStart: string;
    periodEnd: Date;
    totalCalls: number;
    gross: bigint;
    feeBps: number;
    fee: bigint;
    net: bigint;
    carriedIn: bigint;
    amount: bigint;
    status: 'pending' | 'carried_over';
    now: Date;
  },
): Promise<void> {
  await ex.execute(
    sql`INSERT INTO settlements (id, provider_id, account_id, period_start, period_end, total_calls, gross_credits,
                                 fee_bps, fee_credits, net_credits, carried_in_credits, amount_credits, status,
                                 created_at, updated_at)
        VALUES (${s.id}, ${s.providerId}, ${s.accountId}, ${s.periodStart}, ${s.periodEnd.toISOString()},
                ${s.totalCalls}, ${s.gross}, ${s.feeBps}, ${s.fee}, ${s.net}, ${s.carriedIn}, ${s.amount},
                ${s.status}, ${s.now.toISOString()}, ${s.now.toISOString()})`,
  );
}

export async function markCarriedPaidBy(ex: Executor, ids: string[], payoutId: string): Promise<void> {
  if (ids.length === 0) return;
  await ex.execute(
    sql`UPDATE settlements SET paid_by_settlement_id = ${payoutId}, updated_at = now()
        WHERE id IN (${sql.join(
          ids.map((id) => sql`${id}`),
          sql`, `,
        )})`,
  );
}

export async function findSettlement(ex: Executor, id: string): Promise<SettlementRow | undefined> {
  return one<SettlementRow>(ex, sql`SELECT * FROM settlements WHERE id = ${id}`);
}

export async function settlementsByIds(ex: Executor, ids: string[]): Promise<SettlementRow[]> {
  if (ids.length === 0) return [];
  return rows<SettlementRow>(
    ex,
    sql`SELECT * FROM settlements WHERE id IN (${sql.join(
      ids.map((id) => sql`${id}`),
      sql`, `,
    )}) ORDER BY provider_id, created_at`,
  );
}

/** Pending payouts with the owner's current payout wallet (NULL: none set yet). */
export async function pendingPayouts(
  ex: Executor,
  limit: number,
): Promise<(SettlementRow & { payout_wallet: string | null })[]> {
  return rows(
    ex,
    sql`SELECT s.*, w.wallet_address AS payout_wallet
        FROM settlements s LEFT JOIN payout_wallets w ON w.account_id = s.account_id
        WHERE s.status = 'pending' ORDER BY s.created_at, s.id LIMIT ${limit}`,
  );
}

/** Pins the payout's destination at its first attempt; returns the pinned address. */
export async function pinWallet(ex: Executor, id: string, wallet: string): Promise<string | undefined> {
  const row = await one<{ wallet_address: string }>(
    ex,
    sql`UPDATE settlements SET wallet_address = coalesce(wallet_address, ${wallet.toLowerCase()}), updated_at = now()
        WHERE id = ${id} AND status = 'pending' RETURNING wallet_address`,
  );
  return row?.wallet_address;
}

/** Claims the daily run of `runDate` (new, or abandoned by a crashed instance past its lease). */
export async function claimRun(
  ex: Executor,
  r: { runDate: string; until: Date; now: Date; leaseMs: number },
): Promise<boolean> {
  const lease = new Date(r.now.getTime() + r.leaseMs).toISOString();
  const row = await one<{ run_date: unknown }>(
    ex,
    sql`INSERT INTO settlement_runs (run_date, until, lease_until, started_at)
        VALUES (${r.runDate}, ${r.until.toISOString()}, ${lease}, ${r.now.toISOString()})
        ON CONFLICT (run_date) DO UPDATE SET lease_until = EXCLUDED.lease_until,
               attempts = settlement_runs.attempts + 1
          WHERE settlement_runs.finished_at IS NULL AND settlement_runs.lease_until < ${r.now.toISOString()}
        RETURNING run_date`,
  );
  return row !== undefined;
}

export async function finishRun(ex: Executor, runDate: string, settlements: number, now: Date) {
  await ex.execute(
    sql`UPDATE settlement_runs SET finished_at = ${now.toISOString()}, settlements = ${settlements}
        WHERE run_date = ${runDate}`,
  );
}

/** The platform transaction reference of a payout attempt (idempotency key of the transfer). */
export const payoutReference = (id: string, attempt: number) => (attempt > 0 ? `${id}:${attempt}` : id);

/** The settlement of a payout transaction reference. */
export const settlementOfReference = (reference: string) => reference.split(':')[0] ?? reference;

/**
 * Puts a failed payout back to `pending` as a new attempt (new transfer reference). Only `failed` ones: a
 * transfer refused before signing, reverted or dropped never moved the USDC, so a new one pays once.
 */
export async function reopenFailed(
  ex: Executor,
  id: string,
): Promise<'reopened' | 'not_found' | 'not_failed'> {
  const row = await one<{ status: string }>(
    ex,
    sql`SELECT status FROM settlements WHERE id = ${id} FOR UPDATE`,
  );
  if (!row) return 'not_found';
  if (row.status !== 'failed') return 'not_failed';
  await ex.execute(
    sql`UPDATE settlements SET status = 'pending', attempt = attempt + 1, failure_reason = NULL,
               platform_tx_id = NULL, tx_hash = NULL, block_number = NULL, updated_at = now()
        WHERE id = ${id}`,
  );
  return 'reopened';
}
