// `svc deposit --amount 25` (devnet): a real on-chain deposit from the command line. It creates or reuses
// a local wallet key file, takes test USDC from the faucet when the wallet has too little, links the
// wallet to the account of the API key (or signs in with the wallet alone when no key is given), sends
// the USDC transfer to the platform wallet, waits for the confirmations and submits the hash. Everything
// goes through the public HTTP API and the chain's JSON-RPC, like any client would.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  type Address,
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  type Hex,
  http,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { usdcAbi } from '../chain/index.js';

export interface DepositCliOptions {
  /** Service base URL. */
  url: string;
  amount: string;
  apiKey: string | undefined;
  walletFile: string;
  log: (line: string) => void;
  /** Shows that a long step (waiting for the chain) is under way; the returned function ends it. */
  waiting?: (label: string) => () => void;
}

type Headers = Record<string, string>;

async function api(base: string, method: string, url: string, headers: Headers, body?: unknown) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json().catch(() => ({}))) as {
    data?: Record<string, unknown>;
    error?: { code: string; message: string };
  };
  return { status: res.status, json };
}

function expectOk(r: { status: number; json: { error?: { code: string; message: string } } }, what: string) {
  if (r.status >= 300) {
    throw new Error(`${what} failed: ${r.status} ${r.json.error?.code ?? ''} ${r.json.error?.message ?? ''}`);
  }
}

/** Runs the whole deposit; returns the deposit as the service answered it. */
export async function runDepositCli(o: DepositCliOptions): Promise<Record<string, unknown>> {
  if (!/^(0|[1-9]\d{0,4})(\.\d{1,6})?$/.test(o.amount))
    throw new Error('--amount must be a USDC amount, e.g. 25');
  const credits =
    BigInt(o.amount.split('.')[0] ?? '0') * 1_000_000n +
    BigInt((o.amount.split('.')[1] ?? '').padEnd(6, '0'));
  const devnet = await api(o.url, 'GET', '/v1/devnet', {});
  if (devnet.status === 404)
    throw new Error('svc deposit works against a devnet service only (GET /v1/devnet is 404)');
  expectOk(devnet, 'GET /v1/devnet');
  const d = devnet.json.data as {
    rpc_url: string;
    usdc_address: Address;
    platform_wallet: Address;
    chain_id: number;
  };

  if (!existsSync(o.walletFile)) {
    mkdirSync(path.dirname(o.walletFile), { recursive: true });
    writeFileSync(o.walletFile, `${generatePrivateKey()}\n`, { mode: 0o600 });
    o.log(`created wallet key ${o.walletFile}`);
  }
  const account = privateKeyToAccount(readFileSync(o.walletFile, 'utf8').trim() as Hex);
  o.log(`wallet ${account.address}`);
  const chain = {
    id: d.chain_id,
    name: 'devnet',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [d.rpc_url] } },
  };
  const client = createPublicClient({ chain, transport: http(d.rpc_url), pollingInterval: 250 });
  const wallet = createWalletClient({ chain, transport: http(d.rpc_url), account });

  const balance = await client.readContract({
    address: d.usdc_address,
    abi: usdcAbi,
    functionName: 'balanceOf',
    args: [account.address],
  });
  if (balance < credits) {
    const f = await api(
      o.url,
      'POST',
      '/v1/devnet/faucet',
      {},
      { address: account.address, amount_usdc: o.amount },
    );
    expectOk(f, 'faucet');
    o.log(`faucet: ${o.amount} test USDC (tx ${(f.json.data as { tx_hash: string }).tx_hash})`);
  }

  // Credentials: the API key's account (the wallet gets linked to it), or the wallet's own signature.
  const challenge = await api(o.url, 'POST', '/v1/auth/challenge', {}, { wallet_address: account.address });
  expectOk(challenge, 'challenge');
  const c = challenge.json.data as { nonce: string; message: string };
  const signature = await account.signMessage({ message: c.message });
  let headers: Headers;
  if (o.apiKey) {
    headers = { 'x-svc-api-key': o.apiKey };
    const links = await api(o.url, 'GET', '/v1/wallet/links', headers);
    expectOk(links, 'GET /v1/wallet/links');
    const linked = (links.json.data as unknown as { wallet_address: string }[]).some(
      (l) => l.wallet_address === account.address.toLowerCase(),
    );
    if (!linked) {
      const r = await api(o.url, 'POST', '/v1/wallet/links', headers, {
        wallet_address: account.address,
        nonce: c.nonce,
        signature,
      });
      expectOk(r, 'linking the wallet');
      o.log('wallet linked to the account');
    }
  } else {
    headers = { 'x-svc-wallet': account.address, 'x-svc-signature': signature, 'x-svc-nonce': c.nonce };
  }

  const hash = await wallet.sendTransaction({
    to: d.usdc_address,
    data: encodeFunctionData({ abi: usdcAbi, functionName: 'transfer', args: [d.platform_wallet, credits] }),
  });
  o.log(`transfer of ${o.amount} USDC to ${d.platform_wallet}: ${hash}`);
  const done = o.waiting?.('waiting for the transfer to be mined and confirmed') ?? (() => {});
  try {
    await client.waitForTransactionReceipt({ hash });
    return await submitWhenConfirmed(o, headers, hash);
  } finally {
    done();
  }
}

/** Submits the transfer, retrying while the service waits for its confirmations. */
async function submitWhenConfirmed(o: DepositCliOptions, headers: Headers, hash: Hex) {
  for (let attempt = 0; ; attempt++) {
    const r = await api(o.url, 'POST', '/v1/wallet/deposit', headers, { tx_hash: hash });
    if (r.status === 201) return r.json.data as Record<string, unknown>;
    // The deposit watcher (on in devnet) may credit the transfer before we submit it.
    if (r.json.error?.code === 'SVC-PAY-003') {
      o.log('already credited (by the deposit watcher)');
      return { tx_hash: hash, amount_usdc: o.amount, status: 'confirmed' };
    }
    // Not confirmed yet (409 SVC-PAY-006) or the RPC hiccuped (503): wait and retry.
    const retriable = r.json.error?.code === 'SVC-PAY-006' || r.status === 503;
    if (!retriable || attempt >= 120) expectOk(r, 'deposit');
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}
