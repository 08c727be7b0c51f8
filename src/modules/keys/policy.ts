// Spending policies of API keys (docs/keys.md): the wire shape, its validation and
// the columns it is stored in. Enforcement is not here: it runs inside the debit statement
// (src/modules/ledger/debit-rule.ts), atomic with the charge.
import { Type } from '@sinclair/typebox';
import { sql } from 'drizzle-orm';
import { type Executor, one, toIso } from '../../db/index.js';
import { AppError } from '../../errors/catalogue.js';
import { utcDay } from '../../lib/clock.js';
import { creditsToUsdc, usdcToCredits } from '../../lib/money.js';

const Usdc = Type.String({
  pattern: '^(0|[1-9]\\d{0,11})(\\.\\d{1,6})?$',
  description: 'USDC amount, a non-negative decimal string with at most 6 decimals',
});
const Ids = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100, uniqueItems: true });

/** The policy as a client sends it: every field optional, nothing else accepted. */
export const PolicyInput = Type.Object(
  {
    daily_limit_usdc: Type.Optional(Usdc),
    total_limit_usdc: Type.Optional(Usdc),
    per_call_max_usdc: Type.Optional(Usdc),
    allowed_providers: Type.Optional(Ids),
    allowed_categories: Type.Optional(Ids),
    expires_at: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

const NullableString = Type.Union([Type.String(), Type.Null()]);
const NullableIds = Type.Union([Type.Array(Type.String()), Type.Null()]);

/** The policy as the API shows it: unset fields are null. */
export const PolicyView = Type.Object({
  daily_limit_usdc: NullableString,
  total_limit_usdc: NullableString,
  per_call_max_usdc: NullableString,
  allowed_providers: NullableIds,
  allowed_categories: NullableIds,
  expires_at: NullableString,
});

export const KeyUsage = Type.Object({
  today_usdc: Type.String({ description: 'Spent through the key in the current UTC day, net of refunds' }),
  total_usdc: Type.String({ description: 'Spent through the key in total, net of refunds' }),
});

export interface KeyPolicyInput {
  daily_limit_usdc?: string;
  total_limit_usdc?: string;
  per_call_max_usdc?: string;
  allowed_providers?: string[];
  allowed_categories?: string[];
  expires_at?: string;
}

export interface KeyPolicyView {
  daily_limit_usdc: string | null;
  total_limit_usdc: string | null;
  per_call_max_usdc: string | null;
  allowed_providers: string[] | null;
  allowed_categories: string[] | null;
  expires_at: string | null;
}

export interface KeyUsageView {
  today_usdc: string;
  total_usdc: string;
}

/** The policy columns of `api_keys`, as read by the key listings. */
export interface PolicyColumns {
  has_policy: boolean;
  daily_limit_credits: bigint | null;
  total_limit_credits: bigint | null;
  per_call_max_credits: bigint | null;
  allowed_providers: string[] | null;
  allowed_categories: string[] | null;
  expires_at: unknown;
}

export const POLICY_COLUMNS = sql`has_policy, daily_limit_credits, total_limit_credits, per_call_max_credits,
  allowed_providers, allowed_categories, expires_at`;

interface StoredPolicy {
  daily: bigint | null;
  total: bigint | null;
  perCall: bigint | null;
  providers: string[] | null;
  categories: string[] | null;
  expiresAt: string | null;
}

const amount = (v: string | undefined) => (v === undefined ? null : usdcToCredits(v));

/**
 * Checks what the schema cannot (an expiry in the past, a date that does not parse) and converts to
 * credits. The schema already refused unknown fields and negative or malformed amounts.
 */
export function parsePolicy(input: KeyPolicyInput, now: Date, path = '/policy'): StoredPolicy {
  let expiresAt: string | null = null;
  if (input.expires_at !== undefined) {
    const t = new Date(input.expires_at);
    if (Number.isNaN(t.getTime()) || t <= now) {
      throw new AppError('SVC-VAL-001', 'policy.expires_at must be a date-time in the future', {
        errors: [{ path: `${path}/expires_at`, message: 'must be a date-time in the future' }],
      });
    }
    expiresAt = t.toISOString();
  }
  return {
    daily: amount(input.daily_limit_usdc),
    total: amount(input.total_limit_usdc),
    perCall: amount(input.per_call_max_usdc),
    providers: input.allowed_providers ?? null,
    categories: input.allowed_categories ?? null,
    expiresAt,
  };
}

export function policyView(row: PolicyColumns): KeyPolicyView | null {
  if (!row.has_policy) return null;
  const usdc = (v: bigint | null) => (v === null ? null : creditsToUsdc(BigInt(v)));
  return {
    daily_limit_usdc: usdc(row.daily_limit_credits),
    total_limit_usdc: usdc(row.total_limit_credits),
    per_call_max_usdc: usdc(row.per_call_max_credits),
    allowed_providers: row.allowed_providers,
    allowed_categories: row.allowed_categories,
    expires_at: row.expires_at ? toIso(row.expires_at) : null,
  };
}

/** A text[] from a list (drizzle would spread a JS array into separate parameters). */
function textArray(list: string[] | null) {
  return list === null
    ? sql`NULL::text[]`
    : sql`ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(list)}::jsonb))`;
}

/** The SET list writing a policy (or removing it, with null) on an api_keys row. */
export function policyAssignments(policy: StoredPolicy | null) {
  const p = policy;
  return sql`has_policy = ${p !== null}, daily_limit_credits = ${p?.daily ?? null}::bigint,
    total_limit_credits = ${p?.total ?? null}::bigint, per_call_max_credits = ${p?.perCall ?? null}::bigint,
    allowed_providers = ${textArray(p?.providers ?? null)}, allowed_categories = ${textArray(p?.categories ?? null)},
    expires_at = ${p?.expiresAt ?? null}::timestamptz`;
}

/**
 * Puts (or removes) the policy of a key of the account. The account row is locked first, the order every
 * debit and refund of the account takes, so the key's spend counters are set from the call log while no
 * debit or refund of the account can move them: from then on the debit and refund statements keep them.
 * Unknown key or another account's key: 404 SVC-AUTH-002.
 */
export async function writePolicy(
  tx: Executor,
  accountId: string,
  keyId: string,
  policy: StoredPolicy | null,
  now: Date,
): Promise<void> {
  await tx.execute(sql`SELECT 1 FROM accounts WHERE id = ${accountId} FOR UPDATE`);
  const day = utcDay(now);
  const row = await one<{ id: string }>(
    tx,
    sql`UPDATE api_keys k SET ${policyAssignments(policy)},
          spent_day = ${day}::date,
          spent_today_credits = coalesce(u.today, 0), spent_total_credits = coalesce(u.total, 0)
        FROM (SELECT sum(price_credits) FILTER (WHERE created_at >= ${day}::date::timestamp AT TIME ZONE 'utc') AS today,
                     sum(price_credits) AS total
              FROM calls WHERE account_id = ${accountId} AND api_key_id = ${keyId} AND NOT refunded) u
        WHERE k.id = ${keyId} AND k.account_id = ${accountId}
        RETURNING k.id`,
  );
  if (!row) throw new AppError('SVC-AUTH-002', `API key ${keyId} not found`);
}

/** What a key's policy lets it call, for `allowed_only` discovery (null: no restriction of that kind). */
export async function keyPolicyFilter(
  ex: Executor,
  keyId: string,
): Promise<{ providerIds: string[] | null; categories: string[] | null; perCallMaxCredits: bigint | null }> {
  const row = await one<PolicyColumns>(ex, sql`SELECT ${POLICY_COLUMNS} FROM api_keys WHERE id = ${keyId}`);
  if (!row?.has_policy) return { providerIds: null, categories: null, perCallMaxCredits: null };
  return {
    providerIds: row.allowed_providers,
    categories: row.allowed_categories,
    perCallMaxCredits: row.per_call_max_credits === null ? null : BigInt(row.per_call_max_credits),
  };
}
