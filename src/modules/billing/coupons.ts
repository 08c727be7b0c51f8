// Coupons: created by an administrator (docs/billing.md), redeemed once per account for a `coupon_credit`.
// Concurrency: the redemption row (primary key coupon+account) makes one account's concurrent redemptions
// credit once; the guarded count UPDATE makes max_redemptions hold across accounts. One transaction.
import { sql } from 'drizzle-orm';
import { isUniqueViolation, one, toIso } from '../../db/index.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors/catalogue.js';
import { newId } from '../../lib/ids.js';
import { creditsToUsdc, usdcToCredits } from '../../lib/money.js';
import { postEntry } from '../ledger/index.js';
import { invalid } from './dates.js';

export const COUPON_CODE_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_-]{1,63}$';

export interface CouponRow {
  id: string;
  code: string;
  credits: bigint;
  description: string;
  expires_at: string | null;
  max_redemptions: number | null;
  redemption_count: number;
  created_at: string;
}

export interface CreateCouponInput {
  code: string;
  credits_usdc: string;
  description: string;
  expires_at?: string | undefined;
  max_redemptions?: number | undefined;
}

export function toCouponView(c: CouponRow) {
  return {
    id: c.id,
    code: c.code,
    credits: c.credits.toString(),
    credits_usdc: creditsToUsdc(c.credits),
    description: c.description,
    expires_at: c.expires_at ? toIso(c.expires_at) : null,
    max_redemptions: c.max_redemptions,
    redemptions: c.redemption_count,
    created_at: toIso(c.created_at),
  };
}

export async function createCoupon(deps: AppDeps, input: CreateCouponInput) {
  if (!new RegExp(COUPON_CODE_PATTERN).test(input.code)) {
    throw invalid('code', 'must be 2-64 letters, digits, "-" or "_"');
  }
  let credits: bigint;
  try {
    credits = usdcToCredits(input.credits_usdc);
  } catch {
    throw invalid('credits_usdc', 'must be a USDC amount with at most 6 decimals');
  }
  if (credits <= 0n) throw invalid('credits_usdc', 'must be greater than 0');
  const max = input.max_redemptions;
  if (max !== undefined && (!Number.isInteger(max) || max < 1)) {
    throw invalid('max_redemptions', 'must be a positive integer');
  }
  const expiresAt = input.expires_at === undefined ? null : new Date(input.expires_at);
  if (expiresAt && Number.isNaN(expiresAt.getTime())) throw invalid('expires_at', 'must be an ISO date-time');
  try {
    const row = await one<CouponRow>(
      deps.db.orm,
      sql`INSERT INTO coupons (id, code, credits, description, expires_at, max_redemptions, created_at)
          VALUES (${newId('cpn')}, ${input.code.toUpperCase()}, ${credits}, ${input.description},
                  ${expiresAt?.toISOString() ?? null}, ${input.max_redemptions ?? null},
                  ${deps.clock.now().toISOString()})
          RETURNING *`,
    );
    if (!row) throw new Error('coupon insert returned no row');
    return toCouponView(row);
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError('SVC-VAL-007', `Coupon code ${input.code} already exists`);
    throw err;
  }
}

export async function redeemCoupon(deps: AppDeps, accountId: string, rawCode: string) {
  const code = rawCode.trim().toUpperCase();
  const now = deps.clock.now();
  return deps.db.orm.transaction(async (tx) => {
    const coupon = await one<CouponRow>(tx, sql`SELECT * FROM coupons WHERE code = ${code}`);
    if (!coupon) throw new AppError('SVC-COUPON-001');
    if (coupon.expires_at && new Date(toIso(coupon.expires_at)) <= now) {
      throw new AppError('SVC-COUPON-003', 'Coupon expired', { reason: 'expired' });
    }
    const entryId = newId('txn');
    // Waits for a concurrent redemption of the same account, then finds its row: credited once.
    const claimed = await one(
      tx,
      sql`INSERT INTO coupon_redemptions (coupon_id, account_id, ledger_entry_id, credits, created_at)
          VALUES (${coupon.id}, ${accountId}, ${entryId}, ${coupon.credits}, ${now.toISOString()})
          ON CONFLICT (coupon_id, account_id) DO NOTHING RETURNING coupon_id`,
    );
    if (!claimed) throw new AppError('SVC-COUPON-002');
    // Re-evaluated on the latest row when another redemption holds it, so the cap is never overshot.
    const counted = await one(
      tx,
      sql`UPDATE coupons SET redemption_count = redemption_count + 1
          WHERE id = ${coupon.id} AND (max_redemptions IS NULL OR redemption_count < max_redemptions)
          RETURNING id`,
    );
    if (!counted) {
      throw new AppError('SVC-COUPON-003', 'Coupon fully redeemed', {
        reason: 'exhausted',
        max_redemptions: coupon.max_redemptions,
      });
    }
    const entry = await postEntry(tx, {
      accountId,
      type: 'coupon_credit',
      amountCredits: coupon.credits,
      idempotencyKey: `coupon:${coupon.id}:${accountId}`,
      description: `Coupon ${coupon.code}: ${coupon.description}`,
      referenceType: 'coupon',
      referenceId: coupon.id,
    });
    await tx.execute(
      sql`UPDATE coupon_redemptions SET ledger_entry_id = ${entry.id}
          WHERE coupon_id = ${coupon.id} AND account_id = ${accountId}`,
    );
    return {
      code: coupon.code,
      creditsGranted: coupon.credits.toString(),
      usdcEquivalent: creditsToUsdc(coupon.credits),
      description: coupon.description,
      newBalance: entry.balance_after.toString(),
    };
  });
}
