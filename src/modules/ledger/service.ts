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

/**
 * Counts a completed card payment, a confirmed deposit or a settled x402 payment towards the account's
 * trust tier (docs/ratelimit.md); returns the new counter (undefined for an unknown account). The ledger
 * owns the money columns of `accounts`, this counter included (debits count it too, refunds take it back).
 */
export async function countSuccessfulPayment(ex: Executor, accountId: string): Promise<bigint | undefined> {
  const row = await one<{ successful_payments: bigint }>(
    ex,
    sql`UPDATE accounts SET successful_payments = successful_payments + 1 WHERE id = ${accountId}
        RETURNING successful_payments`,
  );
  return row ? BigInt(row.successful_payments) : undefined;
}

export async function findEntryByKey(ex: Executor, idempotencyKey: string): Promise<LedgerEntry | undefined> {
  return one<LedgerEntry>(ex, sql`SELECT * FROM ledger_entries WHERE idempotency_key = ${idempotencyKey}`);
}

export interface InvariantViolation {
  rule: string;
  detail: string;
}

/**
 * The ledger's invariants, checked by tests after every scenario (and by the benchmark after its run):
 * balance = sum of entries; never negative; each entry's balance_after chains from the previous one;
 * every call has exactly one debit (of its price) and at most one refund, a refund never exceeds its
 * debit, a refund exists only for a call settled as provider_error/timeout (and then `refunded` is set);
 * an account's total_spent equals its call debits net of refunds.
 */
export async function checkLedgerInvariants(ex: Executor): Promise<InvariantViolation[]> {
  const violations: InvariantViolation[] = [];
  const add = (rule: string, detail: string) => violations.push({ rule, detail });
  for (const r of await rows<{
    id: string;
    balance_credits: bigint;
    total: bigint | null;
    spent: bigint;
    net_calls: bigint | null;
  }>(
    ex,
    sql`SELECT a.id, a.balance_credits, a.total_spent_credits AS spent,
               (SELECT sum(amount_credits) FROM ledger_entries e WHERE e.account_id = a.id) AS total,
               (SELECT -sum(amount_credits) FROM ledger_entries e
                 WHERE e.account_id = a.id AND e.type IN ('debit', 'refund') AND e.call_id IS NOT NULL) AS net_calls
        FROM accounts a`,
  )) {
    const total = r.total === null ? 0n : BigInt(r.total);
    if (total !== r.balance_credits)
      add('balance = sum of entries', `${r.id}: ${r.balance_credits} != ${total}`);
    if (r.balance_credits < 0n) add('never negative', r.id);
    const net = r.net_calls === null ? 0n : BigInt(r.net_calls);
    if (net !== r.spent) add('total_spent = call debits net of refunds', `${r.id}: ${r.spent} != ${net}`);
  }
  for (const r of await rows<{ id: string }>(
    ex,
    sql`SELECT id FROM (
          SELECT id, balance_after, lag(balance_after, 1, 0::bigint) OVER (PARTITION BY account_id ORDER BY seq) + amount_credits AS expected
          FROM ledger_entries) s WHERE balance_after <> expected`,
  )) {
    add('balance_after chains', r.id);
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
    if (r.debits !== 1n) add('one debit per call', `${r.call_id}: ${r.debits}`);
    if (r.refunds > 1n) add('at most one refund per call', `${r.call_id}: ${r.refunds}`);
    if (BigInt(r.refund_sum) > BigInt(r.debit_sum)) add('refund <= debit', r.call_id);
  }
  // Seen from the call log: each call row has exactly one debit of its price, and a refund only when
  // its outcome was a provider error or a timeout.
  for (const r of await rows<{
    id: string;
    status: string;
    refunded: boolean;
    price_credits: bigint;
    debits: bigint;
    debit_sum: bigint | null;
    refunds: bigint;
  }>(
    ex,
    sql`SELECT c.id, c.status, c.refunded, c.price_credits,
               count(e.seq) FILTER (WHERE e.type = 'debit') AS debits,
               sum(-e.amount_credits) FILTER (WHERE e.type = 'debit') AS debit_sum,
               count(e.seq) FILTER (WHERE e.type = 'refund') AS refunds
        FROM calls c LEFT JOIN ledger_entries e ON e.call_id = c.id
        -- Calls paid from a balance; x402 calls (no account) are paid on-chain, with no ledger entry.
        WHERE c.account_id IS NOT NULL
        GROUP BY c.id, c.status, c.refunded, c.price_credits
        HAVING count(e.seq) FILTER (WHERE e.type = 'debit') <> 1
            OR sum(-e.amount_credits) FILTER (WHERE e.type = 'debit') <> c.price_credits
            OR (count(e.seq) FILTER (WHERE e.type = 'refund') > 0) <> c.refunded
            OR (c.refunded AND c.status NOT IN ('provider_error', 'timeout'))`,
  )) {
    if (r.debits !== 1n) add('every call has exactly one debit', `${r.id}: ${r.debits}`);
    else if (r.debit_sum !== null && BigInt(r.debit_sum) !== r.price_credits) add('debit = call price', r.id);
    if (r.refunds > 0n !== r.refunded) add('refunded flag matches refund entry', r.id);
    if (r.refunded && r.status !== 'provider_error' && r.status !== 'timeout') {
      add('no refund without a provider_error/timeout outcome', `${r.id}: ${r.status}`);
    }
  }
  for (const r of await rows<{ call_id: string }>(
    ex,
    sql`SELECT e.call_id FROM ledger_entries e LEFT JOIN calls c ON c.id = e.call_id
        WHERE e.call_id IS NOT NULL AND e.type IN ('debit', 'refund') AND c.id IS NULL`,
  )) {
    add('call entries belong to a logged call', r.call_id);
  }
  return violations;
}

/**
 * A fresh value of the ledger's `seq` sequence, for an entry of the wallet history that is not a ledger
 * entry (a provider payout): it sorts with the ledger entries written before and after it, so the history's
 * seq cursor pages through both without gaps or duplicates. No ledger row uses it.
 */
export async function nextHistorySeq(ex: Executor): Promise<bigint> {
  const row = await one<{ seq: bigint }>(
    ex,
    sql`SELECT nextval(pg_get_serial_sequence('ledger_entries', 'seq')) AS seq`,
  );
  if (!row) throw new Error('nextval returned no row');
  return BigInt(row.seq);
}
