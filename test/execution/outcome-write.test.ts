// The outcome of a charged call is written just after the answer, in a group write
// (execution/settle-queue.ts). Faults are injected in the database itself (a trigger that refuses the
// outcome update), never by replacing our code.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { one, rows } from '../../src/db/index.js';
import { ManualClock } from '../../src/lib/clock.js';
import { SWEEP_MARGIN_MS, sweepAbandonedCalls } from '../../src/modules/execution/sweeper.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';
import {
  balanceCredits,
  execute,
  expectInvariants,
  fund,
  outcomesRecorded,
  registerProvider,
} from './fixtures.js';

const clock = new ManualClock(new Date('2026-11-20T10:00:00Z'));
let t: TestApp;
let server: ProviderServer;
let providerId: string;

beforeAll(async () => {
  t = await createTestApp({ clock, env: { SVC_RATE_LIMIT_MULTIPLIER: '1000' } });
  server = await startProviderServer({ record: false });
  providerId = (
    await registerProvider(t, server.url, [
      { slug: 'echo', path: '/m/echo', timeout_ms: 1_000 },
      { slug: 'bad-request', path: '/m/bad-request', timeout_ms: 1_000 },
    ])
  ).providerId;
  // Refuses to record a charged outcome while the sequence is below `failures` (nextval is not rolled
  // back with the failed statement, so each attempt counts), and, while `refuse_client_errors` is set,
  // every `client_error` outcome (one row the statement keeps refusing).
  await t.deps.db.orm.execute(sql`CREATE SEQUENCE outcome_fault_seq`);
  await t.deps.db.orm.execute(
    sql`CREATE TABLE outcome_fault (failures bigint NOT NULL, refuse_client_errors boolean NOT NULL)`,
  );
  await t.deps.db.orm.execute(sql`INSERT INTO outcome_fault VALUES (0, false)`);
  await t.deps.db.orm.execute(
    sql.raw(`CREATE FUNCTION refuse_outcome() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.status = 'pending' AND NEW.status IN ('success', 'client_error')
           AND (nextval('outcome_fault_seq') <= (SELECT failures FROM outcome_fault)
                OR (NEW.status = 'client_error' AND (SELECT refuse_client_errors FROM outcome_fault))) THEN
          RAISE EXCEPTION 'injected fault: outcome write refused';
        END IF;
        RETURN NEW;
      END $$`),
  );
  await t.deps.db.orm.execute(
    sql`CREATE TRIGGER refuse_outcome BEFORE UPDATE ON calls FOR EACH ROW EXECUTE FUNCTION refuse_outcome()`,
  );
});
afterAll(async () => {
  await t.close();
  await server.close();
});

/** The next `n` outcome writes fail. */
async function failNextWrites(n: number) {
  await t.deps.db.orm.execute(sql`SELECT setval('outcome_fault_seq', 1, false)`);
  await t.deps.db.orm.execute(sql`UPDATE outcome_fault SET failures = ${n}`);
}

async function refuseClientErrors(refuse: boolean) {
  await t.deps.db.orm.execute(sql`UPDATE outcome_fault SET refuse_client_errors = ${refuse}`);
}

const keptOutcomes = async () =>
  (await rows<{ call_id: string }>(t.deps.db.orm, sql`SELECT call_id FROM call_outcome_backlog`)).map(
    (r) => r.call_id,
  );

const refundMails = async (accountId: string) =>
  Number(
    (
      await one<{ n: number }>(
        t.deps.db.orm,
        sql`SELECT count(*)::int AS n FROM email_outbox WHERE account_id = ${accountId} AND kind LIKE '%refund%'`,
      )
    )?.n,
  );

const callRow = (callId: string) =>
  one<{ status: string; provider_status: number | null; refunded: boolean; refund_reason: string | null }>(
    t.deps.db.orm,
    sql`SELECT status, provider_status, refunded, refund_reason FROM calls WHERE id = ${callId}`,
  );

const pendingUsdc = async (apiKey: string) =>
  (await t.inject({ method: 'GET', url: '/v1/wallet/balance', headers: { 'x-svc-api-key': apiKey } })).json()
    .data.pending_settlements_usdc;

describe('outcome of a charged call', () => {
  it('is recorded after the answer; the wallet already shows the call as settled', async () => {
    await failNextWrites(0);
    const acc = await t.createAccount();
    await fund(t, acc.accountId, '1');
    const calls = await Promise.all(
      Array.from({ length: 5 }, () => execute(t, acc.apiKey, providerId, 'echo', {})),
    );
    expect(calls.map((c) => c.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(await pendingUsdc(acc.apiKey)).toBe('0');
    for (const c of calls) {
      expect(await callRow(c.json().svc.call_id)).toMatchObject({ status: 'success', provider_status: 200 });
    }
    await expectInvariants(t);
  });

  it('is retried when a write fails', async () => {
    const acc = await t.createAccount();
    await fund(t, acc.accountId, '1');
    await failNextWrites(2);
    const res = await execute(t, acc.apiKey, providerId, 'echo', {});
    expect(res.statusCode).toBe(200);
    await outcomesRecorded(t);
    expect(await callRow(res.json().svc.call_id)).toMatchObject({ status: 'success', refunded: false });
    expect(await balanceCredits(t, acc.accountId)).toBe(990_000n);
    await expectInvariants(t);
  });

  it('that cannot be written is kept, and the sweeper records it: an answered call is not refunded', async () => {
    const acc = await t.createAccount();
    await fund(t, acc.accountId, '1');
    await failNextWrites(1_000);
    const res = await execute(t, acc.apiKey, providerId, 'echo', {});
    // The customer has the provider's answer and was charged for it...
    expect(res.statusCode).toBe(200);
    const callId = res.json().svc.call_id;
    // ...then every attempt to record the outcome fails (about 6 s of retries, then alone once more).
    await outcomesRecorded(t);
    expect(await callRow(callId)).toMatchObject({ status: 'pending', refunded: false });
    expect(await keptOutcomes()).toEqual([callId]);
    expect(await pendingUsdc(acc.apiKey)).toBe('0.01');

    // Past its deadline the call looks abandoned, but the sweeper knows it was answered: it records the
    // outcome (the charge stands) instead of refunding it and mailing a refund notice.
    await failNextWrites(0);
    clock.advance(1_000 + SWEEP_MARGIN_MS + 1);
    expect(await sweepAbandonedCalls(t.deps)).toBe(0);
    expect(await callRow(callId)).toMatchObject({ status: 'success', provider_status: 200, refunded: false });
    expect(await keptOutcomes()).toEqual([]);
    expect(await balanceCredits(t, acc.accountId)).toBe(990_000n);
    expect(await pendingUsdc(acc.apiKey)).toBe('0');
    expect(await refundMails(acc.accountId)).toBe(0);
    await expectInvariants(t);
  }, 20_000);

  it('one outcome the database keeps refusing holds back none of the others, and is never refunded', async () => {
    const acc = await t.createAccount();
    await fund(t, acc.accountId, '1');
    // The first call's write fails for ~6 s; the next four calls answer meanwhile and queue behind it,
    // so they are written as one batch, with the refused client error among them.
    await failNextWrites(7);
    await refuseClientErrors(true);
    const first = await execute(t, acc.apiKey, providerId, 'echo', {});
    const batch = await Promise.all([
      execute(t, acc.apiKey, providerId, 'echo', {}),
      execute(t, acc.apiKey, providerId, 'bad-request', {}),
      execute(t, acc.apiKey, providerId, 'echo', {}),
      execute(t, acc.apiKey, providerId, 'echo', {}),
    ]);
    expect([first, ...batch].map((r) => r.statusCode)).toEqual([200, 200, 400, 200, 200]);
    await outcomesRecorded(t);
    const [okA, refused, okB, okC] = batch.map((r) => r.json().svc.call_id as string);
    for (const id of [first.json().svc.call_id, okA, okB, okC]) {
      expect(await callRow(id)).toMatchObject({ status: 'success', refunded: false });
    }
    expect(await callRow(refused as string)).toMatchObject({ status: 'pending', refunded: false });
    expect(await keptOutcomes()).toEqual([refused]);

    // While the database still refuses it, the sweeper neither records nor refunds it (and says so).
    clock.advance(1_000 + SWEEP_MARGIN_MS + 1);
    await expect(sweepAbandonedCalls(t.deps)).rejects.toThrow(/injected fault|Failed query/);
    expect(await callRow(refused as string)).toMatchObject({ status: 'pending', refunded: false });

    await refuseClientErrors(false);
    expect(await sweepAbandonedCalls(t.deps)).toBe(0);
    expect(await callRow(refused as string)).toMatchObject({
      status: 'client_error',
      provider_status: 400,
      refunded: false,
    });
    expect(await balanceCredits(t, acc.accountId)).toBe(950_000n);
    expect(await refundMails(acc.accountId)).toBe(0);
    await expectInvariants(t);
  }, 40_000);
});
