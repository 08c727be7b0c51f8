// Who gets a notification and whether they want it: the account's address, its preferences (docs/notifications.md,
// written by PUT /v1/billing/alerts; a missing key means the docs/notifications.md default) and per-account
// notification state (cooldowns, digest periods) in `notification_state`.
import { sql } from 'drizzle-orm';
import { type Executor, one } from '../../db/index.js';
import { ALERT_DEFAULTS, type AlertKey } from '../billing/index.js';

/** The preference keys and their docs/notifications.md defaults are the billing alerts API's (one source). */
export type PrefKey = AlertKey;
const PREF_DEFAULTS = ALERT_DEFAULTS;

export function prefEnabled(prefs: unknown, key: PrefKey): boolean {
  const value = prefs && typeof prefs === 'object' ? (prefs as Record<string, unknown>)[key] : undefined;
  return typeof value === 'boolean' ? value : PREF_DEFAULTS[key];
}

export interface Recipient {
  id: string;
  email: string;
  name: string | null;
  balance_credits: bigint;
  low_balance_threshold_credits: bigint | null;
  daily_limit_credits: bigint | null;
  email_prefs: unknown;
}

/** The account as a mail recipient; undefined for wallet-only accounts (no e-mail, no mail). */
export async function loadRecipient(ex: Executor, accountId: string): Promise<Recipient | undefined> {
  const row = await one<Recipient & { email_prefs: unknown }>(
    ex,
    sql`SELECT id, email, name, balance_credits, low_balance_threshold_credits, daily_limit_credits, email_prefs
        FROM accounts WHERE id = ${accountId} AND email IS NOT NULL`,
  );
  if (!row) return undefined;
  // PGlite hands jsonb back parsed, node-postgres too; a text value would be a driver surprise.
  const prefs = typeof row.email_prefs === 'string' ? JSON.parse(row.email_prefs) : row.email_prefs;
  return { ...row, email_prefs: prefs };
}

/**
 * Takes the cooldown for (account, kind, scope) when it is free: true when nothing was sent in the last
 * `cooldownMs` (and records `now`), false otherwise. One statement, so concurrent transactions serialise on
 * the row and only one of them wins.
 */
export async function takeCooldown(
  ex: Executor,
  accountId: string,
  kind: string,
  scope: string,
  now: Date,
  cooldownMs: number,
): Promise<boolean> {
  const nowIso = now.toISOString();
  const freeBefore = new Date(now.getTime() - cooldownMs).toISOString();
  const row = await one(
    ex,
    sql`INSERT INTO notification_state (account_id, kind, scope, last_sent_at)
        VALUES (${accountId}, ${kind}, ${scope}, ${nowIso}::timestamptz)
        ON CONFLICT (account_id, kind, scope) DO UPDATE SET last_sent_at = EXCLUDED.last_sent_at
        WHERE notification_state.last_sent_at <= ${freeBefore}::timestamptz
        RETURNING 1 AS taken`,
  );
  return row !== undefined;
}

/** Marks a period (digest) as handled for the account; false when another run already did. */
export async function markPeriodHandled(
  ex: Executor,
  accountId: string,
  kind: string,
  period: string,
  now: Date,
): Promise<boolean> {
  const row = await one(
    ex,
    sql`INSERT INTO notification_state (account_id, kind, scope, last_sent_at)
        VALUES (${accountId}, ${kind}, ${period}, ${now.toISOString()}::timestamptz)
        ON CONFLICT (account_id, kind, scope) DO NOTHING RETURNING 1 AS taken`,
  );
  return row !== undefined;
}
