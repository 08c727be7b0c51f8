// The x402 payer helper (createX402Payer, on the optional peers @x402/fetch + @x402/evm): an agent with
// no account pays real calls on anvil. USDC moves from its wallet to the platform wallet exactly once per
// call; a provider failure is not paid; an offer above the payer's cap is refused before signing.
import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usdcAbi } from '../../../src/modules/chain/index.js';
import { startTestChain, type TestChain } from '../../../test/helpers/chain.js';
import { type ProviderServer, startProviderServer } from '../../../test/helpers/providers.js';
import { createX402Payer, SvcError } from '../src/index.js';
import { type LiveService, registerProvider, startService } from './setup.js';

let chain: TestChain;
let svc: LiveService;
let provider: ProviderServer;

const balanceOf = (address: string) =>
  chain.client.readContract({
    address: chain.usdc,
    abi: usdcAbi,
    functionName: 'balanceOf',
    args: [address as Address],
  });

beforeAll(async () => {
  chain = await startTestChain();
  provider = await startProviderServer();
  svc = await startService({ env: { ...(await chain.serviceEnv()), SVC_RATE_LIMIT_MULTIPLIER: '1000' } });
  await registerProvider(svc.admin, 'x402-weather', provider.url, [
    { slug: 'forecast', behaviour: 'echo', price_usdc: '0.25' },
    { slug: 'broken', behaviour: 'fail', price_usdc: '0.25' },
    { slug: 'dear', behaviour: 'echo', price_usdc: '3' },
  ]);
}, 180_000);

afterAll(async () => {
  await svc?.close();
  await provider?.close();
  await chain?.stop();
});

describe('createX402Payer', () => {
  it('pays a call with no account, once, and not a refunded failure nor an offer above its cap', async () => {
    const agent = privateKeyToAccount(generatePrivateKey());
    const faucet = await fetch(`${svc.baseUrl}/v1/devnet/faucet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: agent.address, amount_usdc: '2' }),
    });
    expect(faucet.status).toBe(200);
    const platform = svc.t.deps.chain.platformWallet as string;
    const platformBefore = await balanceOf(platform);

    const payer = await createX402Payer({
      baseUrl: svc.baseUrl,
      signer: agent,
      asset: 'devnet',
      maxPriceUsdc: '1',
    });
    const paid = await payer.call('x402-weather', 'forecast', { city: 'Oslo' });
    expect(paid.status).toBe(200);
    expect(paid.svc).toMatchObject({
      provider_id: 'x402-weather',
      endpoint: 'forecast',
      charged_usdc: '0.250000',
    });
    expect(paid.data).toMatchObject({ ok: true, received: { city: 'Oslo' } });
    expect(paid.payment).toMatchObject({ success: true, network: 'eip155:31337' });
    expect(paid.payment?.payer?.toLowerCase()).toBe(agent.address.toLowerCase());
    expect(paid.payment?.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await balanceOf(agent.address)).toBe(1_750_000n);
    expect(await balanceOf(platform)).toBe(platformBefore + 250_000n);

    // The provider fails: the call is refunded, so the authorization is never settled.
    const failed = await payer.call('x402-weather', 'broken', {}).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(SvcError);
    expect((failed as SvcError).code).toBe('SVC-EXE-004');
    // Above the payer's 1 USDC cap: the stock client refuses to sign, nothing moves.
    await expect(payer.call('x402-weather', 'dear', {})).rejects.toThrow();
    expect(await balanceOf(agent.address)).toBe(1_750_000n);
    expect(await balanceOf(platform)).toBe(platformBefore + 250_000n);
  });
});
