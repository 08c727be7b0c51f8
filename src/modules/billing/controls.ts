// Spending limits (docs/billing.md) and alert preferences, stored on the account. The execution path
// enforces the limits from these columns inside its debit; the notifications module reads the alerts.
import { sql } from 'drizzle-orm';
import { one } from '../../db/index.js';
import type { AppDeps } from '../../deps.js';
import { creditsToUsdc, usdcToCredits } from '../../lib/money.js';
import { invalid } from './dates.js';

export interface LimitsInput {
  dailySpendLimitUsdc?: string | null | undefined;
  perCallLimitUsdc?: string | null | undefined;
}

/** A positive USDC amount as credits; null stays null (no limit). Schema already checked the pattern. */
function positiveCredits(value: string | null, path: string): bigint | null {
  if (value === null) return null;
  const credits = usdcToCredits(value);
  if (credits <= 0n) throw invalid(path, 'must be greater than 0 (use null to remove the limit)');
  return credits;
}

function limitsView(daily: bigint | null, perCall: bigint | null) {
  return {
    dailySpendLimitUsdc: daily === null ? null : creditsToUsdc(daily),
    perCallLimitUsdc: perCall === null ? null : creditsToUsdc(perCall),
    dailySpendLimitCredits: daily?.toString() ?? null,
    perCallLimitCredits: perCall?.toString() ?? null,
  };
}

/** The account's current limits, in the shape PUT /v1/billing/limits answers. */
export async function getLimits(deps: AppDeps, accountId: string) {
  const row = await one<{ daily_limit_credits: bigint | null; per_call_limit_credits: bigint | null }>(
    deps.db.orm,
    sql`SELECT daily_limit_credits, per_call_limit_credits FROM accounts WHERE id = ${accountId}`,
  );
  if (!row) throw new Error(`account ${accountId} vanished`);
  return limitsView(row.daily_limit_credits, row.per_call_limit_credits);
}

export async function updateLimits(deps: AppDeps, accountId: string, input: LimitsInput) {
  const sets = [];
  if (input.dailySpendLimitUsdc !== undefined) {
    sets.push(
      sql`daily_limit_credits = ${positiveCredits(input.dailySpendLimitUsdc, 'dailySpendLimitUsdc')}`,
    );
  }
  if (input.perCallLimitUsdc !== undefined) {
    sets.push(sql`per_call_limit_credits = ${positiveCredits(input.perCallLimitUsdc, 'perCallLimitUsdc')}`);
  }
  const row = await one<{ daily_limit_credits: bigint | null; per_call_limit_credits: bigint | null }>(
    deps.db.orm,
    sql`UPDATE accounts SET ${sql.join(sets, sql`, `)} WHERE id = ${accountId}
        RETURNING daily_limit_credits, per_call_limit_credits`,
  );
  if (!row) throw new Error(`account ${accountId} vanished`);
  return limitsView(row.daily_limit_credits, row.per_call_limit_credits);
}

export const ALERT_KEYS = [
  'lowBalance',
  'dailyLimitReached',
  'keyLimitReached',
  'paymentConfirmed',
  'creditsRefunded',
  'unusualActivity',
  'dailySummary',
  'weeklySummary',
] as const;
export type AlertKey = (typeof ALERT_KEYS)[number];

/** docs/billing.md defaults; a key missing from email_prefs means its default. */
export const ALERT_DEFAULTS: Readonly<Record<AlertKey, boolean>> = {
  lowBalance: false,
  dailyLimitReached: true,
  keyLimitReached: true,
  paymentConfirmed: true,
  creditsRefunded: false,
  unusualActivity: false,
  dailySummary: false,
  weeklySummary: false,
};

export interface AlertsInput {
  lowBalanceThresholdUsdc?: string | null | undefined;
  emailNotifications?: Partial<Record<AlertKey, boolean>> | undefined;
}

function parsePrefs(raw: unknown): Record<string, unknown> {
  const value = typeof raw === 'string' ? JSON.parse(raw) : raw;
  return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
}

function alertsView(threshold: bigint | null, rawPrefs: unknown) {
  const prefs = parsePrefs(rawPrefs);
  const emailNotifications = {} as Record<AlertKey, boolean>;
  for (const key of ALERT_KEYS) {
    const v = prefs[key];
    emailNotifications[key] = typeof v === 'boolean' ? v : ALERT_DEFAULTS[key];
  }
  return { lowBalanceThresholdUsdc: creditsToUsdc(threshold ?? 0n), emailNotifications };
}

/** The account's current alert settings, in the shape PUT /v1/billing/alerts answers. */
export async function getAlerts(deps: AppDeps, accountId: string) {
  const row = await one<{ low_balance_threshold_credits: bigint | null; email_prefs: unknown }>(
    deps.db.orm,
    sql`SELECT low_balance_threshold_credits, email_prefs FROM accounts WHERE id = ${accountId}`,
  );
  if (!row) throw new Error(`account ${accountId} vanished`);
  return alertsView(row.low_balance_threshold_credits, row.email_prefs);
}

/**
 * Merges the given keys into the stored preferences (one statement, so concurrent updates of different
 * keys both stick). `paymentConfirmed: false` is stored as sent, but that e-mail is always sent (docs/billing.md).
 */
export async function updateAlerts(deps: AppDeps, accountId: string, input: AlertsInput) {
  const threshold =
    input.lowBalanceThresholdUsdc === undefined || input.lowBalanceThresholdUsdc === null
      ? null
      : usdcToCredits(input.lowBalanceThresholdUsdc);
  const patch = JSON.stringify(input.emailNotifications ?? {});
  const setThreshold = input.lowBalanceThresholdUsdc !== undefined;
  const row = await one<{ low_balance_threshold_credits: bigint | null; email_prefs: unknown }>(
    deps.db.orm,
    sql`UPDATE accounts SET email_prefs = email_prefs || ${patch}::jsonb,
               low_balance_threshold_credits = CASE WHEN ${setThreshold} THEN ${threshold}::bigint
                                                    ELSE low_balance_threshold_credits END
        WHERE id = ${accountId} RETURNING low_balance_threshold_credits, email_prefs`,
  );
  if (!row) throw new Error(`account ${accountId} vanished`);
  return alertsView(row.low_balance_threshold_credits, row.email_prefs);
}
