// Shared steps of the deposit tests: accounts with linked wallets, deposits, ledger checks.
import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import type { PrivateKeyAccount } from 'viem';
import { expect } from 'vitest';
import { one } from '../../src/db/index.js';
import { checkLedgerInvariants } from '../../src/modules/ledger/service.js';
import type { TestApp } from '../helpers/app.js';

/** Signs a fresh challenge with `wallet` and links it to the account of `apiKey`. */
export async function link(
  t: TestApp,
  apiKey: string,
  wallet: PrivateKeyAccount,
): Promise<LightMyRequestResponse> {
  const c = (
    await t.inject({ method: 'POST', url: '/v1/auth/challenge', payload: { wallet_address: wallet.address } })
  ).json().data;
  return t.inject({
    method: 'POST',
    url: '/v1/wallet/links',
    headers: { 'x-svc-api-key': apiKey },
    payload: {
      wallet_address: wallet.address,
      nonce: c.nonce,
      signature: await wallet.signMessage({ message: c.message }),
    },
  });
}

export function deposit(t: TestApp, apiKey: string, txHash: string) {
  return t.inject({
    method: 'POST',
    url: '/v1/wallet/deposit',
    headers: { 'x-svc-api-key': apiKey },
    payload: { tx_hash: txHash },
  });
}

export async function balanceCredits(t: TestApp, accountId: string): Promise<bigint> {
  const row = await one<{ balance_credits: bigint }>(
    t.deps.db.orm,
    sql`SELECT balance_credits FROM accounts WHERE id = ${accountId}`,
  );
  return BigInt(row?.balance_credits ?? -1n);
}

export function expectError(res: LightMyRequestResponse, status: number, code: string) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json().error.code).toBe(code);
}

export async function expectLedgerConsistent(t: TestApp) {
  expect(await checkLedgerInvariants(t.deps.db.orm)).toEqual([]);
}
