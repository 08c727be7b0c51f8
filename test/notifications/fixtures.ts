// Test fixtures for the notification tests. Where another domain's HTTP path is not in the tree yet, these
// write what that path writes (ledger entries through the real postEntry, call-log rows) and call the
// trigger in the same real transaction, exactly as the owning module does.
import { sql } from 'drizzle-orm';
import { one } from '../../src/db/index.js';
import { newId } from '../../src/lib/ids.js';
import { postEntry } from '../../src/modules/ledger/service.js';
import { afterBalanceDecrease, onCallRefunded } from '../../src/modules/notifications/triggers.js';
import type { TestApp } from '../helpers/app.js';

export async function setPrefs(t: TestApp, accountId: string, prefs: Record<string, boolean>) {
  await t.deps.db.orm.execute(
    sql`UPDATE accounts SET email_prefs = ${JSON.stringify(prefs)}::jsonb WHERE id = ${accountId}`,
  );
}

export async function setThreshold(t: TestApp, accountId: string, credits: bigint | null) {
  await t.deps.db.orm.execute(
    sql`UPDATE accounts SET low_balance_threshold_credits = ${credits} WHERE id = ${accountId}`,
  );
}

export async function balanceOf(t: TestApp, accountId: string): Promise<bigint> {
  const row = await one<{ b: bigint }>(
    t.deps.db.orm,
    sql`SELECT balance_credits AS b FROM accounts WHERE id = ${accountId}`,
  );
  return row?.b ?? 0n;
}

export async function credit(t: TestApp, accountId: string, credits: bigint) {
  await t.deps.db.orm.transaction(async (tx) => {
    await postEntry(tx, {
      accountId,
      type: 'admin_credit',
      amountCredits: credits,
      idempotencyKey: newId('evt'),
      description: 'test credit',
    });
  });
}

export interface CallFixture {
  keyId?: string | null;
  providerId?: string;
  slug?: string;
  price?: bigint;
  /** Provider failed: the call is refunded (entry + flag) and onCallRefunded runs. */
  refunded?: boolean;
  /** Call-log time (ledger entries keep the database clock). */
  at?: Date;
}

/** A paid call as the execution module records it: call row + debit (+ refund), triggers in the same tx. */
export async function paidCall(t: TestApp, accountId: string, f: CallFixture = {}): Promise<string> {
  const callId = newId('call');
  const price = f.price ?? 1000n;
  const providerId = f.providerId ?? 'acme';
  const slug = f.slug ?? 'search';
  const at = (f.at ?? t.deps.clock.now()).toISOString();
  await t.deps.db.orm.transaction(async (tx) => {
    await tx.execute(
      sql`INSERT INTO calls (id, account_id, api_key_id, provider_id, endpoint_slug, price_credits, status,
                             refunded, deadline_at, created_at, finished_at)
          VALUES (${callId}, ${accountId}, ${f.keyId ?? null}, ${providerId}, ${slug}, ${price},
                  ${f.refunded ? 'provider_error' : 'success'}, ${f.refunded ?? false}, ${at}::timestamptz,
                  ${at}::timestamptz, ${at}::timestamptz)`,
    );
    const debit = await postEntry(tx, {
      accountId,
      type: 'debit',
      amountCredits: -price,
      idempotencyKey: `debit:${callId}`,
      callId,
      providerId,
      endpointSlug: slug,
    });
    await afterBalanceDecrease(tx, t.deps, {
      accountId,
      balanceBefore: debit.balance_after + price,
      balanceAfter: debit.balance_after,
    });
    if (f.refunded) {
      await postEntry(tx, {
        accountId,
        type: 'refund',
        amountCredits: price,
        idempotencyKey: `refund:${callId}`,
        callId,
        providerId,
        endpointSlug: slug,
      });
      await onCallRefunded(tx, t.deps, {
        accountId,
        callId,
        providerId,
        endpointSlug: slug,
        credits: price,
        reason: 'provider returned HTTP 503',
      });
    }
  });
  return callId;
}

/** A plain debit (no call row) with the balance trigger, as a processor refund does. */
export async function debit(t: TestApp, accountId: string, credits: bigint) {
  await t.deps.db.orm.transaction(async (tx) => {
    const entry = await postEntry(tx, {
      accountId,
      type: 'payment_refund',
      amountCredits: -credits,
      idempotencyKey: newId('evt'),
    });
    await afterBalanceDecrease(tx, t.deps, {
      accountId,
      balanceBefore: entry.balance_after + credits,
      balanceAfter: entry.balance_after,
    });
  });
}
