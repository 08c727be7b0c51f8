// Admin credit (docs/billing.md): an `admin_credit` ledger entry. Shared by the admin API route and
// the `svc admin credit` CLI command.
import type { Database } from '../../db/index.js';
import { AppError } from '../../errors/catalogue.js';
import { assertReplayable, requestFingerprint } from '../../http/idempotency.js';
import { newId } from '../../lib/ids.js';
import { isUsdcString, usdcToCredits } from '../../lib/money.js';
import {
  DuplicateLedgerEntry,
  findEntryByKey,
  type LedgerEntry,
  postEntry,
  UnknownAccount,
} from './service.js';

export interface AdminCreditResult {
  entry: LedgerEntry;
  /** True when an earlier credit with the same Idempotency-Key was returned instead of a new one. */
  replayed: boolean;
}

/** Parses a positive USDC amount (≤ 6 decimals) or throws SVC-VAL-001 naming the field. */
export function parsePositiveUsdc(value: string, field: string): bigint {
  const credits = isUsdcString(value) ? usdcToCredits(value) : 0n;
  if (credits <= 0n) {
    throw new AppError('SVC-VAL-001', `${field} must be a positive USDC amount with at most 6 decimals`, {
      errors: [{ path: field, message: 'must be a positive decimal string with at most 6 decimals' }],
    });
  }
  return credits;
}

/**
 * Credits an account. Unknown account → 404 SVC-AUTH-006 (the same code the admin account routes use).
 * With an idempotency key, a retry returns the first credit.
 */
export async function creditAccountByAdmin(
  db: Database,
  input: { accountId: string; amountUsdc: string; description: string; idempotencyKey?: string },
): Promise<AdminCreditResult> {
  const credits = parsePositiveUsdc(input.amountUsdc, 'amount_usdc');
  const key = input.idempotencyKey
    ? `admin_credit:${input.accountId}:${input.idempotencyKey}`
    : `admin_credit:${newId('txn')}`;
  try {
    const entry = await db.orm.transaction((tx) =>
      postEntry(tx, {
        accountId: input.accountId,
        type: 'admin_credit',
        amountCredits: credits,
        idempotencyKey: key,
        description: input.description,
        referenceType: 'admin',
      }),
    );
    return { entry, replayed: false };
  } catch (err) {
    if (err instanceof UnknownAccount) {
      throw new AppError('SVC-AUTH-006', `Account ${input.accountId} not found`);
    }
    if (err instanceof DuplicateLedgerEntry) {
      const entry = await findEntryByKey(db.orm, key);
      if (entry) {
        // The entry itself holds what the request asked for: the same key with another amount or
        // description is another request (422), as on execute.
        const fingerprint = (amount: bigint, description: string) =>
          requestFingerprint(['admin_credit', input.accountId], { amount, description });
        assertReplayable(
          { fingerprint: fingerprint(entry.amount_credits, entry.description), finished: true },
          fingerprint(credits, input.description),
        );
        return { entry, replayed: true };
      }
    }
    throw err;
  }
}
