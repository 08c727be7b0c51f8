// svc_execute paid per call with x402 over MCP (DESIGN.md 13), on a real anvil: the SDK's own Client, the
// stock @x402/evm client scheme signing the payment, the payer's USDC read from the chain.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { PaymentRequired } from '@x402/core/types';
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerProvider } from '../execution/fixtures.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';
import { balanceOf, fundedWallet, offerOf, signedHeader } from '../x402/helpers.js';
import {
  connect,
  type ListeningApp,
  OutputSchemas,
  startListeningApp,
  structured,
  toolError,
} from './fixtures.js';

let chain: TestChain;
let t: ListeningApp;
let provider: ProviderServer;
let providerId: string;
let platform: string;
let anonymous: Client;
let schemas: OutputSchemas;

const PRICE = 250_000n;

beforeAll(async () => {
  chain = await startTestChain();
  provider = await startProviderServer();
  t = await startListeningApp({
    env: { ...(await chain.serviceEnv()), SVC_RATE_LIMIT_MULTIPLIER: '1000' },
  });
  platform = t.deps.chain.platformWallet as string;
  ({ providerId } = await registerProvider(t, provider.url, [
    {
      slug: 'echo',
      price_usdc: '0.25',
      parameters: { city: { type: 'string', required: true, description: 'City' } },
    },
  ]));
  anonymous = await connect(t.url);
  schemas = new OutputSchemas((await anonymous.listTools()).tools);
}, 180_000);

afterAll(async () => {
  await anonymous?.close();
  await t?.close();
  await provider?.close();
  await chain?.stop();
});

async function execute(city: string, meta?: Record<string, unknown>): Promise<CallToolResult> {
  const result = (await anonymous.callTool({
    name: 'svc_execute',
    arguments: { provider_id: providerId, endpoint: 'echo', params: { city } },
    ...(meta ? { _meta: meta } : {}),
  })) as CallToolResult;
  schemas.expectValid('svc_execute', result);
  return result;
}

/** The requirements an anonymous svc_execute answers, as an x402 client reads them. */
async function quote(city: string): Promise<PaymentRequired> {
  const content = structured(await execute(city));
  return { x402Version: 2, resource: content.resource, accepts: content.accepts } as PaymentRequired;
}

describe('svc_execute with x402 over MCP', () => {
  it('anonymous: SVC-AUTH-001 with the same payment requirements as the HTTP 402, nothing called', async () => {
    const hits = provider.hits('/echo');
    const result = await execute('Oslo');
    const error = toolError(result);
    expect(error.code).toBe('SVC-AUTH-001');
    const offer = await offerOf(`${t.url}/x402/${providerId}/echo`, { city: 'Oslo' });
    expect(error.details.x402).toEqual(offer);
    expect(error.details.x402).toMatchObject({
      x402Version: 2,
      accepts: [
        { scheme: 'exact', network: 'eip155:31337', amount: '250000', asset: chain.usdc, payTo: platform },
      ],
    });
    const content = structured(result);
    expect(content.x402Version).toBe(2);
    expect(content.accepts).toEqual(offer.accepts);
    expect(content.resource).toEqual(offer.resource);
    expect(provider.hits('/echo')).toBe(hits);
  });

  it('anonymous with params the endpoint refuses: SVC-AUTH-001 with the reason, no quote', async () => {
    const result = (await anonymous.callTool({
      name: 'svc_execute',
      arguments: { provider_id: providerId, endpoint: 'echo', params: {} },
    })) as CallToolResult;
    schemas.expectValid('svc_execute', result);
    const error = toolError(result);
    expect(error.code).toBe('SVC-AUTH-001');
    expect(error.details.x402_error).toMatchObject({ code: 'SVC-EXE-003' });
    expect(structured(result).accepts).toBeUndefined();
  });

  it('pays with the PaymentPayload in _meta["x402/payment"]: the data, the settlement, exactly the price', async () => {
    const payer = await fundedWallet(t, '1');
    const [payerBefore, platformBefore] = [
      await balanceOf(chain, payer.address),
      await balanceOf(chain, platform),
    ];
    const { payload } = await signedHeader(payer, await quote('Oslo'));
    const result = await execute('Oslo', { 'x402/payment': payload });
    expect(result.isError, JSON.stringify(result)).toBeFalsy();
    const content = structured(result);
    expect(content.data).toMatchObject({ ok: true, received: { city: 'Oslo' } });
    expect(content.svc).toMatchObject({
      provider_id: providerId,
      endpoint: 'echo',
      charged_usdc: '0.250000',
    });
    const settlement = result._meta?.['x402/payment-response'] as Record<string, unknown>;
    expect(settlement).toMatchObject({ success: true, network: 'eip155:31337', payer: payer.address });
    const receipt = await chain.client.getTransactionReceipt({ hash: settlement.transaction as Hex });
    expect(receipt.status).toBe('success');
    expect(await balanceOf(chain, payer.address)).toBe(payerBefore - PRICE);
    expect(await balanceOf(chain, platform)).toBe(platformBefore + PRICE);

    // The same payment again buys no second call: the stored answer, no second transfer.
    const hits = provider.hits('/echo');
    const replay = await execute('Oslo', { 'x402/payment': payload });
    expect(structured(replay)).toEqual(content);
    expect(provider.hits('/echo')).toBe(hits);
    expect(await balanceOf(chain, payer.address)).toBe(payerBefore - PRICE);
  });

  it('accepts the base64 PAYMENT-SIGNATURE header string as well', async () => {
    const payer = await fundedWallet(t, '1');
    const before = await balanceOf(chain, payer.address);
    const { header } = await signedHeader(payer, await quote('Lima'));
    const result = await execute('Lima', { 'x402/payment': header });
    expect(structured(result).data).toMatchObject({ received: { city: 'Lima' } });
    expect(result._meta?.['x402/payment-response']).toMatchObject({ success: true, payer: payer.address });
    expect(await balanceOf(chain, payer.address)).toBe(before - PRICE);
  });

  it('a bad payment is an error result with the reason and the requirements; nothing moves', async () => {
    const payer = await fundedWallet(t, '1');
    const before = await balanceOf(chain, payer.address);
    const hits = provider.hits('/echo');
    // Signed for less than the price.
    const { payload } = await signedHeader(payer, await quote('Rome'), (r) => ({ ...r, amount: '1' }));
    const result = await execute('Rome', { 'x402/payment': payload });
    const error = toolError(result);
    expect(error.code).toBe('SVC-AUTH-001');
    expect(error.details.reason).toBe('invalid_exact_evm_payload_authorization_value_mismatch');
    expect(error.message).toContain('invalid_exact_evm_payload_authorization_value_mismatch');
    expect(structured(result).accepts).toEqual((await quote('Rome')).accepts);
    expect(result._meta?.['x402/payment-response']).toBeUndefined();

    // Not a payment at all.
    const malformed = await execute('Rome', { 'x402/payment': 42 });
    expect(toolError(malformed).code).toBe('SVC-MCP-001');
    const garbage = await execute('Rome', { 'x402/payment': 'not-base64-json' });
    expect(toolError(garbage).details.reason).toBe('invalid_payload');

    expect(provider.hits('/echo')).toBe(hits);
    expect(await balanceOf(chain, payer.address)).toBe(before);
  });
});
