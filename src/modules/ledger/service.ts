// The ledger: every balance change is one append-only entry written in the same transaction as the
// balance, keyed by a natural idempotency key (unique index) so a retried write can never apply twice.
import { sql } from 'drizzle-orm';
import { type Executor, isUniqueViolation, one, rows, type Tx } from '../../db/index.js';
import { newId } from '../../lib/ids.js';

export type EntryType = 'deposit' | 'debit' | 'refund' | 'admin_credit' | 'coupon_credit' | 'payment_refund';

/** Credit types count towards `total_deposited_credits`. */
const FUNDING_TYPES: ReadonlySet<EntryType> = new Set(['deposit', 'admin_credit', 'coupon_credit']);

export interface PostEntryInput {
  accountId: string;
  type: EntryType;
  /** Signed: positive credits the account, negative debits it. */
  amountCredits: bigint;
  idempotencyKey: string;
  description?: string;
  referenceType?: string;
  referenceId?: string;
  callId?: string;
  providerId?: string;
  endpointSlug?: string;
  txHash?: string;
}

export interface LedgerEntry {
  id: string;
  seq: bigint;
  account_id: string;
  type: EntryType;
  amount_credits: bigint;
  balance_after: bigint;
  description: string;
  reference_type: string | null;
  reference_id: string | null;
  call_id: string | null;
  provider_id: string | null;
  endpoint_slug: string | null;
  tx_hash: string | null;
  idempotency_key: string;
  created_at: string;
}

export class InsufficientBalance extends Error {
  constructor(readonly available: bigint) {
    super('insufficient balance');
  }
}

export class DuplicateLedgerEntry extends Error {
  constructor(readonly idempotencyKey: string) {
    super(`ledger entry already written for ${idempotencyKey}`);
  }
}

export class UnknownAccount extends Error {}

/**
 * Applies one entry to the balance inside `tx`. Throws InsufficientBalance when a negative amount would
 * take the balance below zero, DuplicateLedgerEntry when the idempotency key was already used (the
 * caller's transaction must then be rolled back, which undoes the balance change).
 */
export async function postEntry(tx: Tx, input: PostEntryInput): Promise<LedgerEntry> {
  const funding = FUNDING_TYPES.has(input.type) ? input.amountCredits : 0n;
  const updated = await one<{ balance_credits: bigint }>(
    tx,
    sql`UPDATE accounts
        SET balance_credits = balance_credits + ${input.amountCredits},
            total_deposited_credits = total_deposited_credits + ${funding}
        WHERE id = ${input.accountId} AND balance_credits + ${input.amountCredits} >= 0
        RETURNING balance_credits`,
  );
  if (!updated) {
    const current = await one<{ balance_credits: bigint }>(
      tx,
      sql`SELECT balance_credits FROM accounts WHERE id = ${input.accountId}`,
    );
    if (!current) throw new UnknownAccount(input.accountId);
    throw new InsufficientBalance(current.balance_credits);
  }
  try {
    // A savepoint keeps the caller's transaction usable when the key turns out to be a duplicate.
    return await tx.transaction(async (sp) => insertEntry(sp, input, updated.balance_credits));
  } catch (err) {
    if (isUniqueViolation(err)) throw new DuplicateLedgerEntry(input.idempotencyKey);
    throw err;
  }
}

async function insertEntry(ex: Executor, input: PostEntryInput, balanceAfter: bigint): Promise<LedgerEntry> {
  const row = await one<LedgerEntry>(
    ex,
    sql`INSERT INTO ledger_entries
          (id, account_id, type, amount_credits, balance_after, description, reference_type, reference_id,
           call_id, provider_id, endpoint_slug, tx_hash, idempotency_key)
        VALUES (${newId('txn')}, ${input.accountId}, ${input.type}, ${input.amountCredits}, ${balanceAfter},
           ${input.description ?? ''}, ${input.referenceType ?? null}, ${input.referenceId ?? null},
           ${input.callId ?? null}, ${input.providerId ?? null}, ${input.endpointSlug ?? null},
           ${input.txHash ?? null}, ${input.idempotencyKey})
        RETURNING *`,
  );
  if (!row) throw new Error('ledger insert returned no row');
  return row;
}

export async function findEntryByKey(ex: Executor, idempotencyKey: string): Promise<LedgerEntry | undefined> {
  return one<LedgerEntry>(ex, sql`SELECT * FROM ledger_entries WHERE idempotency_key = ${idempotencyKey}`);
}

export interface InvariantViolation {
  rule: string;
  detail: string;
}

/**
 * The ledger's invariants, checked by tests after every scenario:
 * balance = sum of entries; never negative; each entry's balance_after chains from the previous one;
 * a call has exactly one debit and at most one refund, and a refund never exceeds its debit.
 */
export async function checkLedgerInvariants(ex: Executor): Promise<InvariantViolation[]> {
  const violations: InvariantViolation[] = [];
  for (const r of await rows<{ id: string; balance_credits: bigint; total: bigint | null }>(
    ex,
    sql`SELECT a.id, a.balance_credits, (SELECT sum(amount_credits) FROM ledger_entries e WHERE e.account_id = a.id) AS total
        FROM accounts a`,
  )) {
    const total = r.total === null ? 0n : BigInt(r.total);
    if (total !== r.balance_credits) {
      violations.push({
        rule: 'balance = sum of entries',
        detail: `${r.id}: ${r.balance_credits} != ${total}`,
      });
    }
    if (r.balance_credits < 0n) violations.push({ rule: 'never negative', detail: r.id });
  }
  for (const r of await rows<{ id: string }>(
    ex,
    sql`SELECT id FROM (
          SELECT id, balance_after, lag(balance_after, 1, 0::bigint) OVER (PARTITION BY account_id ORDER BY seq) + amount_credits AS expected
          FROM ledger_entries) s WHERE balance_after <> expected`,
  )) {
    violations.push({ rule: 'balance_after chains', detail: r.id });
  }
  for (const r of await rows<{
    call_id: string;
    debits: bigint;
    refunds: bigint;
    debit_sum: bigint;
    refund_sum: bigint;
  }>(
    ex,
    sql`SELECT call_id,
               count(*) FILTER (WHERE type = 'debit') AS debits,
               count(*) FILTER (WHERE type = 'refund') AS refunds,
               coalesce(sum(-amount_credits) FILTER (WHERE type = 'debit'), 0) AS debit_sum,
               coalesce(sum(amount_credits) FILTER (WHERE type = 'refund'), 0) AS refund_sum
        FROM ledger_entries WHERE call_id IS NOT NULL GROUP BY call_id`,
  )) {
    if (r.debits !== 1n) violations.push({ rule: 'one debit per call', detail: `${r.call_id}: ${r.debits}` });
    if (r.refunds > 1n)
      violations.push({ rule: 'at most one refund per call', detail: `${r.call_id}: ${r.refunds}` });
    if (BigInt(r.refund_sum) > BigInt(r.debit_sum)) {
      violations.push({ rule: 'refund <= debit', detail: r.call_id });
    }
  }
  return violations;
}
