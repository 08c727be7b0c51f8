// Shared steps of the payout tests: a provider owned by an account (admin body's owner_account_id), the
// owner's payout wallet, the platform hot wallet's USDC, and waiting for payouts to be mined.
import { sql } from 'drizzle-orm';
import type { Address } from 'viem';
import { expect } from 'vitest';
import { type Executor, rows } from '../../src/db/index.js';
import { randomHex } from '../../src/lib/secrets.js';
import { platformTransactionsJob, usdcAbi } from '../../src/modules/chain/index.js';
import type { TestApp } from '../helpers/app.js';
import type { TestChain } from '../helpers/chain.js';
import { balanceOf } from '../x402/helpers.js';

export interface PricedEndpoint {
  slug: string;
  price_usdc: string;
}

/** Registers a provider owned by `ownerAccountId` whose endpoints are the provider server's behaviours. */
export async function ownedProvider(
  t: TestApp,
  ownerAccountId: string,
  baseUrl: string,
  endpoints: PricedEndpoint[],
): Promise<string> {
  const providerId = `paid-${randomHex(4)}`;
  const res = await t.admin('POST', '/v1/admin/providers', {
    provider_id: providerId,
    owner_account_id: ownerAccountId,
    name: `Provider ${providerId}`,
    description: 'A provider that gets paid',
    category: 'utility',
    base_url: baseUrl,
    endpoints: endpoints.map((e) => ({
      slug: e.slug,
      method: 'POST',
      path: `/${e.slug}`,
      description: `Endpoint ${e.slug}`,
      parameters: {},
      pricing: { model: 'per_call', price_per_call_usdc: e.price_usdc },
      timeout_ms: 2_000,
    })),
  });
  expect(res.statusCode, res.body).toBe(201);
  return providerId;
}

/**
 * Fixture: the wallet linked to the owner and chosen as its payout wallet — the rows that
 * POST /v1/wallet/links (a signed challenge) and PUT /v1/provider/payout-wallet write.
 */
export async function payToWallet(ex: Executor, accountId: string, wallet: string) {
  const address = wallet.toLowerCase();
  await ex.execute(
    sql`INSERT INTO wallet_links (wallet_address, account_id) VALUES (${address}, ${accountId})
        ON CONFLICT (wallet_address) DO NOTHING`,
  );
  await ex.execute(
    sql`INSERT INTO payout_wallets (account_id, wallet_address) VALUES (${accountId}, ${address})
        ON CONFLICT (account_id) DO UPDATE SET wallet_address = EXCLUDED.wallet_address, updated_at = now()`,
  );
}

export const payTo = (t: TestApp, accountId: string, wallet: string) =>
  payToWallet(t.deps.db.orm, accountId, wallet);

/** The USDC balance of an address on the test chain. */
export const usdcBalance = balanceOf;

/** Gives the platform hot wallet USDC to pay providers with. */
export async function fundHotWallet(t: TestApp, chain: TestChain, credits: bigint) {
  await chain.mint(t.deps.chain.platformWallet as Address, credits);
}

/** Runs the platform transaction job until no payout is left pending or submitted. */
export async function settleOnChain(t: TestApp, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await platformTransactionsJob.run(t.deps);
    const open = await rows<{ n: number }>(
      t.deps.db.orm,
      sql`SELECT count(*)::int AS n FROM settlements WHERE status IN ('submitted')`,
    );
    if (Number(open[0]?.n ?? 0) === 0) return;
    if (Date.now() > deadline) throw new Error('payouts still not mined');
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Transfer logs of the test USDC to `to` (every payout it ever received). */
export async function transfersTo(chain: TestChain, to: string) {
  const logs = await chain.client.getContractEvents({
    address: chain.usdc,
    abi: usdcAbi,
    eventName: 'Transfer',
    args: { to: to as Address },
    fromBlock: 0n,
  });
  return logs.map((l) => ({ value: l.args.value, hash: l.transactionHash }));
}

/**
 * Runs the settlement for everything earned before `until` (default: now). A run settles the calls that
 * finished strictly before `until`; a call the test has just made may have finished within the same
 * millisecond as `new Date()`, so the default waits for the clock to move on first.
 */
export async function runNow(t: TestApp, until?: Date) {
  if (!until) await new Promise((resolve) => setTimeout(resolve, 2));
  return t.admin('POST', '/v1/admin/settlements/run', { until: (until ?? new Date()).toISOString() });
}

export const asAccount = (apiKey: string) => ({ 'x-svc-api-key': apiKey });
