// Every SvcClient method against the real service on a port, with real provider servers.
import { sql } from 'drizzle-orm';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { one } from '../../../src/db/index.js';
import { type ProviderServer, startProviderServer } from '../../../test/helpers/providers.js';
import { type SvcClient, SvcError, WalletSession } from '../src/index.js';
import { type LiveService, registerProvider, startService } from './setup.js';

let svc: LiveService;
let providers: ProviderServer;
let user: SvcClient;
let accountId: string;

beforeAll(async () => {
  svc = await startService();
  providers = await startProviderServer();
  const created = await svc.admin.adminCreateAccount({ email: 'client@example.com' });
  accountId = created.data.account_id;
  user = svc.client({ apiKey: created.data.api_key.key });
  await registerProvider(svc.admin, 'wx-echo', providers.url, [{ slug: 'forecast', behaviour: 'echo' }]);
}, 60_000);
afterAll(async () => {
  await svc?.close();
  await providers?.close();
});

describe('SvcClient against the running service', () => {
  it('reads health and readiness', async () => {
    expect(await user.health()).toEqual({ status: 'ok' });
    expect(await user.ready()).toEqual({ status: 'ready' });
  });

  it('credits, executes with the accepted price and shows balance, history, usage and CSV', async () => {
    const credit = await svc.admin.adminCredit(
      accountId,
      { amount_usdc: '1', description: 'test' },
      'credit-1',
    );
    expect(credit.data.amountUsdc).toBe('1.000000');
    // The same key credits once.
    await svc.admin.adminCredit(accountId, { amount_usdc: '1', description: 'test' }, 'credit-1');

    const result = await user.execute('wx-echo', 'forecast', { city: 'Lisbon' }, { maxPriceUsdc: '0.01' });
    expect(result.status).toBe(200);
    expect(result.svc.charged_usdc).toBe('0.010000');
    expect(result.data).toMatchObject({ ok: true, received: { city: 'Lisbon' } });

    expect((await user.balance()).data.balance_usdc).toBe('0.99');
    expect((await user.billingBalance()).balanceCredits).toBe('990000');
    const history = await user.history({ limit: 10 });
    expect(history.data.map((e) => e.type)).toEqual(['call', 'deposit']);
    const transactions = await user.transactions({});
    expect(transactions.transactions.length).toBe(2);
    const usage = await user.usage({ groupBy: 'provider' });
    expect(usage).toMatchObject({ providers: [{ providerId: 'wx-echo', callCount: 1 }] });
    const csv = await user.usageCsv();
    expect(csv.split('\r\n')[0]).toBe(
      'timestamp,call_id,provider_id,endpoint_slug,credits_charged,usdc_charged,outcome,provider_status,latency_ms',
    );
    expect(csv).toContain(`${result.svc.call_id},wx-echo,forecast,10000,0.010000,success,200`);
  });

  it('sends X-Svc-Max-Price-Usdc and the Idempotency-Key it is given', async () => {
    const seen: Headers[] = [];
    const spy = svc.client({
      apiKey: (await svc.admin.adminCreateAccount({ email: 'spy@example.com' })).data.api_key.key,
      fetch: async (input, init) => {
        seen.push(new Headers(init?.headers));
        return fetch(input, init);
      },
    });
    await expect(
      spy.execute('wx-echo', 'forecast', {}, { idempotencyKey: 'k-1', maxPriceUsdc: '0.02' }),
    ).rejects.toMatchObject({
      code: 'SVC-PAY-001',
      status: 402,
    });
    expect(seen[0]?.get('x-svc-max-price-usdc')).toBe('0.02');
    expect(seen[0]?.get('idempotency-key')).toBe('k-1');
  });

  it('lists the catalogue and discovers', async () => {
    expect((await user.listProviders()).data.map((p) => p.provider_id)).toContain('wx-echo');
    expect((await user.getProvider('wx-echo')).data.endpoints[0]?.slug).toBe('forecast');
    expect((await user.getEndpoint('wx-echo', 'forecast')).data.pricing.price_per_call_usdc).toBe('0.01');
    const found = await user.discover({ query: 'weather forecast' });
    expect(found.results[0]?.provider_id).toBe('wx-echo');
  });

  it('manages API keys and reports typed errors with code, status and request id', async () => {
    const key = await user.createKey('ci');
    expect(key.data.key).toMatch(/^svc_sk_/);
    expect((await user.listKeys()).data.map((k) => k.id)).toContain(key.data.id);
    expect((await user.revokeKey(key.data.id)).data.status).toBe('revoked');
    const error = await user.revokeKey('key_missing').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcError);
    expect(error).toMatchObject({ code: 'SVC-AUTH-002', status: 404 });
    expect((error as SvcError).requestId).toMatch(/^req_/);
  });

  it('sets limits and alerts, redeems a coupon, starts a checkout and lists payments', async () => {
    expect(await user.setLimits({ dailySpendLimitUsdc: '5' })).toMatchObject({
      dailySpendLimitCredits: '5000000',
    });
    expect((await user.setAlerts({ lowBalanceThresholdUsdc: '0.5' })).lowBalanceThresholdUsdc).toMatch(
      /^0\.5/,
    );
    await svc.admin.adminCreateCoupon({ code: 'WELCOME', credits_usdc: '2', description: 'welcome' });
    expect(await user.redeemCoupon('welcome')).toMatchObject({ creditsGranted: '2000000' });
    const checkout = await user.checkout({
      amountUsdCents: 1000,
      successUrl: 'http://localhost/ok',
      cancelUrl: 'http://localhost/cancel',
    });
    expect(checkout.checkoutUrl).toContain('/checkout/');
    expect((await user.payments({})).payments.length).toBe(1);
  });

  it('signs in with an e-mailed code and uses the session token', async () => {
    const anonymous = svc.client();
    expect((await anonymous.requestLogin('client@example.com')).data.status).toBe('code_sent');
    const mail = await one<{ text_body: string }>(
      svc.t.deps.db.orm,
      sql`SELECT text_body FROM email_outbox WHERE kind = 'login_code' ORDER BY id DESC LIMIT 1`,
    );
    const code = /\b(\d{6})\b/.exec(mail?.text_body ?? '')?.[1] ?? '';
    const session = await anonymous.verifyLogin('client@example.com', code);
    expect(session.data.account_id).toBe(accountId);
    expect((await anonymous.authStatus()).data).toMatchObject({
      tier: 'authenticated',
      account_id: accountId,
    });
  });

  it('signs requests with a viem wallet and refreshes the signature before it expires', async () => {
    const account = privateKeyToAccount(`0x${'11'.repeat(32)}`);
    const walletClient = svc.client({ wallet: account });
    const status = await walletClient.authStatus();
    expect(status.data).toMatchObject({ tier: 'authenticated', wallet: account.address.toLowerCase() });

    let now = Date.now();
    let challenges = 0;
    const session = new WalletSession(
      account,
      async (address) => {
        challenges++;
        return (await walletClient.challenge(address)).data;
      },
      () => now,
    );
    const first = await session.headers();
    expect(await session.headers()).toEqual(first);
    expect(challenges).toBe(1);
    // Five minutes before expires_at the next request signs a fresh challenge.
    now = (session.expiresAt ?? 0) - 4 * 60 * 1000;
    const second = await session.headers();
    expect(challenges).toBe(2);
    expect(second['x-svc-nonce']).not.toBe(first['x-svc-nonce']);
    const res = await fetch(`${svc.baseUrl}/v1/auth/status`, { headers: second });
    expect(res.status).toBe(200);
  });

  it('suspends and reinstates, replaces and deletes a provider (admin methods)', async () => {
    const other = await svc.admin.adminCreateAccount({ email: 'other@example.com' });
    await svc.admin.adminSetAccountStatus(other.data.account_id, 'suspend', 'test');
    const suspended = svc.client({ apiKey: other.data.api_key.key });
    await expect(suspended.balance()).rejects.toMatchObject({ code: 'SVC-AUTH-004', status: 403 });
    await svc.admin.adminSetAccountStatus(other.data.account_id, 'reinstate');
    expect((await suspended.balance()).data.balance_usdc).toBe('0');

    await registerProvider(svc.admin, 'wx-temp', providers.url, [{ slug: 'forecast', behaviour: 'echo' }]);
    const replaced = await svc.admin.adminReplaceProvider('wx-temp', {
      name: 'Renamed',
      description: 'x',
      category: 'utility',
      base_url: providers.url,
      endpoints: [
        {
          slug: 'forecast',
          method: 'POST',
          path: '/echo',
          description: 'Weather forecast',
          parameters: {},
          pricing: { model: 'per_call', price_per_call_usdc: '0.02' },
          timeout_ms: 2_000,
        },
      ],
    } as Parameters<SvcClient['adminReplaceProvider']>[1]);
    expect(replaced.data.name).toBe('Renamed');
    await svc.admin.adminDeleteProvider('wx-temp');
    await expect(user.getProvider('wx-temp')).rejects.toMatchObject({ status: 404 });
  });
});
