// Provider earnings and settlements on a real anvil: exact gross/fee/net over charged, 4xx-charged,
// refunded, own-owner and x402 calls; the USDC that reaches the payout wallet; carry-over below the
// minimum and its payout the next time; no payout wallet → pending, paid once one is set; what the owner,
// another account and the operator see.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rows } from '../../src/db/index.js';
import { deliverDueEmails } from '../../src/modules/notifications/delivery.js';
import { payPending } from '../../src/modules/payouts/index.js';
import { execute, fund, outcomesRecorded } from '../execution/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';
import { TestSmtpServer } from '../notifications/smtp.js';
import { fundedWallet, listen, stockClient } from '../x402/helpers.js';
import {
  asAccount,
  fundHotWallet,
  ownedProvider,
  payTo,
  runNow,
  settleOnChain,
  transfersTo,
  usdcBalance,
} from './helpers.js';

let chain: TestChain;
let t: TestApp;
let server: ProviderServer;
let base: string;
let smtp: TestSmtpServer;

beforeAll(async () => {
  chain = await startTestChain();
  server = await startProviderServer();
  smtp = await new TestSmtpServer().start();
  t = await createTestApp({
    env: { ...(await chain.serviceEnv()), SVC_RATE_LIMIT_MULTIPLIER: '1000', SMTP_URL: smtp.url },
  });
  base = await listen(t);
  await fundHotWallet(t, chain, 1_000_000_000n);
}, 180_000);

afterAll(async () => {
  await t?.close();
  await server?.close();
  await chain?.stop();
  await smtp?.stop();
});

/** A provider of a new owner, called once (echo, charged) by another account, outcome recorded. */
async function oneCallEarning(priceUsdc: string) {
  const owner = await t.createAccount();
  const caller = await t.createAccount();
  await fund(t, caller.accountId, '5');
  const providerId = await ownedProvider(t, owner.accountId, server.url, [
    { slug: 'echo', price_usdc: priceUsdc },
  ]);
  await execute(t, caller.apiKey, providerId, 'echo', {});
  await outcomesRecorded(t);
  return { owner, providerId };
}

const get = (url: string, apiKey: string) => t.inject({ method: 'GET', url, headers: asAccount(apiKey) });

describe('earnings and one payout', () => {
  it('pays exactly gross − fee (rounded down) for charged, 4xx-charged and x402 calls, nothing else', async () => {
    const owner = await t.createAccount();
    const caller = await t.createAccount();
    const stranger = await t.createAccount();
    await fund(t, caller.accountId, '10');
    await fund(t, owner.accountId, '10');
    const providerId = await ownedProvider(t, owner.accountId, server.url, [
      { slug: 'echo', price_usdc: '0.123457' },
      { slug: 'bad-request', price_usdc: '0.210001' },
      { slug: 'fail', price_usdc: '0.5' },
    ]);
    for (let i = 0; i < 3; i++)
      expect((await execute(t, caller.apiKey, providerId, 'echo', {})).statusCode).toBe(200);
    for (let i = 0; i < 2; i++) {
      expect((await execute(t, caller.apiKey, providerId, 'bad-request', {})).statusCode).toBe(400);
    }
    // Refunded (provider 5xx): earns nothing.
    for (let i = 0; i < 2; i++)
      expect((await execute(t, caller.apiKey, providerId, 'fail', {})).statusCode).toBe(502);
    // The owner's own calls earn nothing.
    for (let i = 0; i < 2; i++)
      expect((await execute(t, owner.apiKey, providerId, 'echo', {})).statusCode).toBe(200);
    // One x402 call paid on-chain by an anonymous wallet, and one that failed at the provider (not paid).
    const agent = await fundedWallet(t, '5');
    const { fetch: pay } = stockClient(chain, agent);
    const paid = await pay(`${base}/x402/${providerId}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(paid.status).toBe(200);
    const unpaid = await pay(`${base}/x402/${providerId}/fail`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(unpaid.status).toBe(502);
    await outcomesRecorded(t);

    // gross = 4 × 0.123457 + 2 × 0.210001 = 0.913830; fee = 913830 × 300 / 10000 = 27414.9 → 27414.
    const earnings = await get('/v1/provider/earnings', owner.apiKey);
    expect(earnings.statusCode, earnings.body).toBe(200);
    expect(earnings.json().data).toMatchObject({
      unsettled_calls: 6,
      unsettled_gross_usdc: '0.913830',
      unsettled_fee_usdc: '0.027414',
      unsettled_net_usdc: '0.886416',
      carried_over_usdc: '0.000000',
    });
    expect(new Date(earnings.json().data.next_settlement_at).getUTCHours()).toBe(2);
    // Another account owns nothing: it sees nothing.
    expect((await get('/v1/provider/earnings', stranger.apiKey)).json().data).toMatchObject({
      unsettled_calls: 0,
      unsettled_gross_usdc: '0.000000',
    });

    const wallet = await chain.newWallet();
    await payTo(t, owner.accountId, wallet.address);
    const run = await runNow(t);
    expect(run.statusCode, run.body).toBe(200);
    const made = run.json().data.filter((s: { provider_id: string }) => s.provider_id === providerId);
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({
      account_id: owner.accountId,
      total_calls: 6,
      gross_usdc: '0.913830',
      fee_usdc: '0.027414',
      net_usdc: '0.886416',
      amount_usdc: '0.886416',
      wallet_address: wallet.address.toLowerCase(),
    });
    expect(['submitted', 'confirmed']).toContain(made[0].status);
    await settleOnChain(t);
    expect(await usdcBalance(chain, wallet.address)).toBe(886_416n);

    const list = await get('/v1/provider/settlements', owner.apiKey);
    expect(list.statusCode, list.body).toBe(200);
    const [mine] = list.json().data;
    expect(mine).toMatchObject({ settlement_id: made[0].settlement_id, status: 'confirmed' });
    expect(mine.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await transfersTo(chain, wallet.address)).map((x) => x.hash)).toEqual([mine.tx_hash]);
    expect((await get('/v1/provider/settlements', stranger.apiKey)).json().data).toEqual([]);

    // Nothing left to settle; a second run pays nothing more.
    expect((await get('/v1/provider/earnings', owner.apiKey)).json().data.unsettled_calls).toBe(0);
    const again = await runNow(t);
    expect(again.json().data.filter((s: { provider_id: string }) => s.provider_id === providerId)).toEqual(
      [],
    );
    await settleOnChain(t);
    expect(await usdcBalance(chain, wallet.address)).toBe(886_416n);

    // The owner's wallet history shows the payout; balances and billing transactions do not.
    const history = await get('/v1/wallet/history?type=settlement', owner.apiKey);
    expect(history.json().data).toEqual([
      expect.objectContaining({
        id: mine.settlement_id,
        type: 'settlement',
        amount_usdc: '+0.886416',
        tx_hash: mine.tx_hash,
        provider_id: providerId,
      }),
    ]);
    const all = await get('/v1/wallet/history?limit=3', owner.apiKey);
    expect(all.json().data[0].id).toBe(mine.settlement_id);
    const next = await get(
      `/v1/wallet/history?limit=3&cursor=${all.json().pagination.next_cursor}`,
      owner.apiKey,
    );
    expect(next.json().data.map((e: { id: string }) => e.id)).not.toContain(mine.settlement_id);
    const balance = await get('/v1/wallet/balance', owner.apiKey);
    // 10 USDC funded − 2 own calls.
    expect(balance.json().data.balance_usdc).toBe('9.753086');
    const billing = await get('/v1/billing/transactions', owner.apiKey);
    expect(JSON.stringify(billing.json())).not.toContain(mine.tx_hash);

    // The owner is e-mailed once, through SMTP, with the amount and the transaction.
    await deliverDueEmails(t.deps);
    await deliverDueEmails(t.deps);
    const mails = smtp.received.filter((m) => m.subject.includes(providerId));
    expect(mails.map((m) => m.subject)).toEqual([`Payout sent: 0.886416 USDC for ${providerId}`]);
    expect(mails[0]?.text).toContain(mine.tx_hash);
    expect(mails[0]?.text).toContain(mine.settlement_id);

    // The operator's views.
    const admin = await t.admin('GET', `/v1/admin/settlements?provider_id=${providerId}`);
    expect(admin.json().data).toEqual([
      expect.objectContaining({ status: 'confirmed', fee_usdc: '0.027414' }),
    ]);
    const fees = await t.admin('GET', '/v1/admin/settlements/fees');
    expect(fees.statusCode, fees.body).toBe(200);
    expect(BigInt(fees.json().data.collected_fee_usdc.replace('.', ''))).toBeGreaterThanOrEqual(27_414n);
  });
});

describe('carry-over and pending', () => {
  it('carries a net below the minimum over, then pays it with the next period', async () => {
    const owner = await t.createAccount();
    const caller = await t.createAccount();
    await fund(t, caller.accountId, '5');
    const providerId = await ownedProvider(t, owner.accountId, server.url, [
      { slug: 'echo', price_usdc: '0.05' },
    ]);
    const wallet = await chain.newWallet();
    await payTo(t, owner.accountId, wallet.address);

    await execute(t, caller.apiKey, providerId, 'echo', {});
    await outcomesRecorded(t);
    const first = (await runNow(t))
      .json()
      .data.find((s: { provider_id: string }) => s.provider_id === providerId);
    // 0.05 − 3 % = 0.0485 < 0.10.
    expect(first).toMatchObject({
      status: 'carried_over',
      gross_usdc: '0.050000',
      fee_usdc: '0.001500',
      net_usdc: '0.048500',
      amount_usdc: '0.000000',
      tx_hash: null,
    });
    expect((await get('/v1/provider/earnings', owner.apiKey)).json().data).toMatchObject({
      unsettled_calls: 0,
      carried_over_usdc: '0.048500',
    });

    await execute(t, caller.apiKey, providerId, 'echo', {});
    await execute(t, caller.apiKey, providerId, 'echo', {});
    await outcomesRecorded(t);
    const second = (await runNow(t))
      .json()
      .data.find((s: { provider_id: string }) => s.provider_id === providerId);
    expect(second).toMatchObject({
      total_calls: 2,
      gross_usdc: '0.100000',
      fee_usdc: '0.003000',
      net_usdc: '0.097000',
      carried_in_usdc: '0.048500',
      amount_usdc: '0.145500',
    });
    await settleOnChain(t);
    expect(await usdcBalance(chain, wallet.address)).toBe(145_500n);
    const list = (await get('/v1/provider/settlements', owner.apiKey)).json().data;
    expect(list.map((s: { status: string }) => s.status)).toEqual(['confirmed', 'carried_over']);
    expect(list[1].paid_by_settlement_id).toBe(second.settlement_id);
    expect((await get('/v1/provider/earnings', owner.apiKey)).json().data.carried_over_usdc).toBe('0.000000');
  });

  it('keeps a payout pending without a payout wallet and pays it once one is set', async () => {
    const { owner, providerId } = await oneCallEarning('0.4');
    const made = (await runNow(t))
      .json()
      .data.find((s: { provider_id: string }) => s.provider_id === providerId);
    expect(made).toMatchObject({ status: 'pending', amount_usdc: '0.388000', wallet_address: null });
    const pending = await t.admin('GET', '/v1/admin/settlements?status=pending');
    expect(pending.json().data.map((s: { settlement_id: string }) => s.settlement_id)).toContain(
      made.settlement_id,
    );

    const wallet = await chain.newWallet();
    await payTo(t, owner.accountId, wallet.address);
    await payPending(t.deps);
    await payPending(t.deps);
    await settleOnChain(t);
    expect(await usdcBalance(chain, wallet.address)).toBe(388_000n);
    expect(await transfersTo(chain, wallet.address)).toHaveLength(1);
    const [s] = (await get('/v1/provider/settlements', owner.apiKey)).json().data;
    expect(s).toMatchObject({ settlement_id: made.settlement_id, status: 'confirmed' });
  });

  it('holds a payout whose payout wallet was unlinked since it was chosen', async () => {
    const { owner, providerId } = await oneCallEarning('0.4');
    const wallet = await chain.newWallet();
    await payTo(t, owner.accountId, wallet.address);
    // The owner unlinks the wallet (e.g. its key was lost) and does not choose another one.
    const unlinked = await t.inject({
      method: 'DELETE',
      url: `/v1/wallet/links/${wallet.address}`,
      headers: asAccount(owner.apiKey),
    });
    expect(unlinked.statusCode, unlinked.body).toBeLessThan(300);
    const made = (await runNow(t))
      .json()
      .data.find((s: { provider_id: string }) => s.provider_id === providerId);
    expect(made).toMatchObject({ status: 'pending', amount_usdc: '0.388000' });

    await payPending(t.deps);
    expect(await transfersTo(chain, wallet.address)).toHaveLength(0);
    const [held] = (await get('/v1/provider/settlements', owner.apiKey)).json().data;
    expect(held).toMatchObject({
      settlement_id: made.settlement_id,
      status: 'pending',
      wallet_address: null,
    });

    // Linked again: paid once.
    await payTo(t, owner.accountId, wallet.address);
    await payPending(t.deps);
    await settleOnChain(t);
    expect(await usdcBalance(chain, wallet.address)).toBe(388_000n);
    expect(await transfersTo(chain, wallet.address)).toHaveLength(1);
  });

  it('marks a payout the node refuses (hot wallet without USDC) failed, visible to the operator', async () => {
    const lean = await createTestApp({ env: await chain.serviceEnv() });
    try {
      const owner = await lean.createAccount();
      const caller = await lean.createAccount();
      await fund(lean, caller.accountId, '5');
      const providerId = await ownedProvider(lean, owner.accountId, server.url, [
        { slug: 'echo', price_usdc: '1' },
      ]);
      const wallet = await chain.newWallet();
      await payTo(lean, owner.accountId, wallet.address);
      await execute(lean, caller.apiKey, providerId, 'echo', {});
      await outcomesRecorded(lean);
      const run = await runNow(lean);
      expect(run.json().data).toEqual([
        expect.objectContaining({ status: 'failed', failure_reason: expect.stringContaining('refused') }),
      ]);
      const failed = await lean.admin('GET', '/v1/admin/settlements?status=failed');
      expect(failed.json().data).toHaveLength(1);
      expect((await lean.admin('GET', '/v1/admin/settlements/fees')).json().data).toMatchObject({
        failed_count: 1,
        failed_usdc: '0.970000',
      });
      const mails = await rows<{ kind: string }>(
        lean.deps.db.orm,
        sql`SELECT kind FROM email_outbox WHERE account_id = ${owner.accountId} AND kind LIKE 'payout%'`,
      );
      expect(mails).toEqual([{ kind: 'payout_failed' }]);

      // The operator tops up the hot wallet and retries it: paid once; a second retry is refused.
      const failedId = run.json().data[0].settlement_id;
      await fundHotWallet(lean, chain, 10_000_000n);
      const retried = await lean.admin('POST', `/v1/admin/settlements/${failedId}/retry`);
      expect(retried.statusCode, retried.body).toBe(200);
      expect(['submitted', 'confirmed']).toContain(retried.json().data.status);
      await settleOnChain(lean);
      expect(await usdcBalance(chain, wallet.address)).toBe(970_000n);
      const again = await lean.admin('POST', `/v1/admin/settlements/${failedId}/retry`);
      expect(again.statusCode).toBe(409);
      expect(again.json().error.code).toBe('SVC-PAYOUT-002');
      expect((await lean.admin('POST', '/v1/admin/settlements/stl_nope/retry')).statusCode).toBe(404);
    } finally {
      await lean.close();
    }
  });

  it('refuses a run until in the future, with 400', async () => {
    const res = await t.admin('POST', '/v1/admin/settlements/run', {
      until: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('SVC-VAL-001');
  });
});
