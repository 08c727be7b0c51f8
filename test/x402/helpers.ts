// Shared set-up of the x402 tests: a real anvil with our test USDC, the service listening on a real port,
// a local provider, and stock x402 clients (@x402/fetch + @x402/evm) for wallets funded by the faucet.
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { sql } from 'drizzle-orm';
import type { Address, PrivateKeyAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { expect } from 'vitest';
import { rows } from '../../src/db/index.js';
import { usdcAbi } from '../../src/modules/chain/index.js';
import type { TestApp } from '../helpers/app.js';
import type { TestChain } from '../helpers/chain.js';

export async function listen(t: TestApp): Promise<string> {
  return t.app.listen({ port: 0, host: '127.0.0.1' });
}

/** A new wallet with `usdc` test USDC from the service's own faucet (as an agent would get it). */
export async function fundedWallet(t: TestApp, usdc: string): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey());
  const res = await t.inject({
    method: 'POST',
    url: '/v1/devnet/faucet',
    payload: { address: account.address, amount_usdc: usdc },
  });
  expect(res.statusCode, res.body).toBe(200);
  return account;
}

export function balanceOf(chain: TestChain, address: string): Promise<bigint> {
  return chain.client.readContract({
    address: chain.usdc,
    abi: usdcAbi,
    functionName: 'balanceOf',
    args: [address as Address],
  });
}

/** A stock client with the settings docs/x402.md gives for our devnet USDC. */
export function stockClient(chain: TestChain, account: PrivateKeyAccount) {
  const client = new x402Client().setSpendControls({
    allowedAssets: [{ network: 'eip155:31337', asset: chain.usdc, maxAmountPerPayment: '5000000' }],
  });
  registerExactEvmScheme(client, { signer: account });
  return { client, fetch: wrapFetchWithPayment(fetch, client) };
}

/** The 402 offer of a resource (what a client reads before signing). */
export async function offerOf(url: string, body: unknown): Promise<PaymentRequired> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(402);
  const header = res.headers.get('PAYMENT-REQUIRED');
  expect(header).toBeTruthy();
  return decodePaymentRequiredHeader(header as string);
}

/** A payment header signed by the stock client for `offer`, with the requirements changed by `tweak`. */
export async function signedHeader(
  account: PrivateKeyAccount,
  offer: PaymentRequired,
  tweak: (r: PaymentRequirements) => PaymentRequirements = (r) => r,
): Promise<{ header: string; payload: PaymentPayload }> {
  const client = new x402Client().setSpendControls(false);
  registerExactEvmScheme(client, { signer: account });
  const accepts = offer.accepts.map(tweak);
  const payload = await client.createPaymentPayload({ ...offer, accepts });
  return { header: encodePaymentSignatureHeader(payload), payload };
}

export async function paidCall(url: string, header: string, body: unknown, name = 'PAYMENT-SIGNATURE') {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [name]: header },
    body: JSON.stringify(body),
  });
}

export async function paymentRows(t: TestApp) {
  return rows<{ status: string; payer: string; tx_hash: string | null }>(
    t.deps.db.orm,
    sql`SELECT status, payer, tx_hash FROM x402_payments ORDER BY created_at`,
  );
}
