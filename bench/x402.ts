// npm run bench:x402 — the same endpoint paid per call with x402 (a signed EIP-3009 authorization, settled
// on the local chain by the in-process facilitator) and paid with credits (POST /v1/execute), side by side:
// paid calls/s and latency at concurrency 1 and 8, and the latency x402 adds. The service runs in this
// process on a real anvil, with PostgreSQL when DATABASE_URL is set (default: the local test database).
// Payment headers are signed before the timed phase: signing is the agent's cost, not the service's.
import { performance } from 'node:perf_hooks';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { x402Client } from '@x402/fetch';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createTestApp } from '../test/helpers/app.js';
import { startTestChain } from '../test/helpers/chain.js';
import { startProviderServer } from '../test/helpers/providers.js';

process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/test';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = [1, 8];

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  failed: number;
}

function percentile(sorted: number[], p: number) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** Closed loop: `concurrency` workers, each sends the next request when the last one answered. */
async function load(
  concurrency: number,
  send: (i: number) => Promise<Response>,
  max = Infinity,
): Promise<Figures> {
  const latencies: number[] = [];
  let failed = 0;
  let seq = 0;
  const end = performance.now() + SECONDS * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end && seq < max) {
        const i = seq++;
        const t0 = performance.now();
        const res = await send(i);
        await res.arrayBuffer();
        if (res.status !== 200) failed++;
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    rps: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    failed,
  };
}

async function main() {
  const chain = await startTestChain();
  const provider = await startProviderServer({ record: false });
  const t = await createTestApp({
    env: { ...(await chain.serviceEnv()), SVC_RATE_LIMIT_MULTIPLIER: '100000' },
  });
  const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const providerId = 'bench-x402';
    const registered = await t.admin('POST', '/v1/admin/providers', {
      provider_id: providerId,
      name: 'Bench provider',
      description: 'Local echo',
      category: 'utility',
      base_url: provider.url,
      endpoints: [
        {
          slug: 'echo',
          method: 'POST',
          path: '/echo',
          description: 'Echo',
          parameters: {},
          pricing: { model: 'per_call', price_per_call_usdc: '0.001' },
          timeout_ms: 5_000,
        },
      ],
    });
    if (registered.statusCode !== 201) throw new Error(`provider: ${registered.body}`);
    const { accountId, apiKey } = await t.createAccount();
    const funded = await t.admin('POST', `/v1/admin/accounts/${accountId}/credits`, {
      amount_usdc: '1000',
      description: 'bench',
    });
    if (funded.statusCode >= 300) throw new Error(`fund: ${funded.body}`);
    const creditsUrl = `${base}/v1/execute/${providerId}/echo`;
    const x402Url = `${base}/x402/${providerId}/echo`;
    const offerRes = await fetch(x402Url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    const offer = JSON.parse(
      Buffer.from(offerRes.headers.get('PAYMENT-REQUIRED') as string, 'base64').toString('utf8'),
    ) as PaymentRequired;

    // Enough pre-signed payments for the x402 phases (each buys one call), from a few faucet-funded wallets.
    const budget = Number(process.env.BENCH_X402_CALLS ?? 400);
    const wallets = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const account = privateKeyToAccount(generatePrivateKey());
        const r = await t.inject({
          method: 'POST',
          url: '/v1/devnet/faucet',
          payload: { address: account.address, amount_usdc: '100' },
        });
        if (r.statusCode !== 200) throw new Error(`faucet: ${r.body}`);
        const client = new x402Client().setSpendControls(false);
        registerExactEvmScheme(client, { signer: account });
        return client;
      }),
    );
    const headers: string[] = [];
    for (let i = 0; i < budget * CONCURRENCY.length; i++) {
      const client = wallets[i % wallets.length] as x402Client;
      headers.push(encodePaymentSignatureHeader(await client.createPaymentPayload(offer)));
    }
    let nextHeader = 0;

    const credits = (c: number) =>
      load(c, () =>
        fetch(creditsUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-svc-api-key': apiKey },
          body: '{}',
        }),
      );
    const x402 = (c: number) =>
      load(
        c,
        () =>
          fetch(x402Url, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'PAYMENT-SIGNATURE': headers[nextHeader++] as string,
            },
            body: '{}',
          }),
        budget,
      );

    await credits(2); // warm-up (connections, caches, JIT)
    const rows: string[] = [];
    const fmt = (n: number, d = 1) => n.toFixed(d).padStart(8);
    rows.push(
      `${'concurrency'.padEnd(12)}${'credits/s'.padStart(10)}${'x402/s'.padStart(10)}${'credits p50'.padStart(13)}${'x402 p50'.padStart(10)}${'x402 p99'.padStart(10)}${'added p50'.padStart(11)}  failed`,
    );
    for (const c of CONCURRENCY) {
      const cr = await credits(c);
      const xr = await x402(c);
      rows.push(
        `${String(c).padEnd(12)}${fmt(cr.rps, 0).padStart(10)}${fmt(xr.rps).padStart(10)}${fmt(cr.p50, 2).padStart(13)}${fmt(xr.p50, 2).padStart(10)}${fmt(xr.p99, 2).padStart(10)}${fmt(xr.p50 - cr.p50, 2).padStart(11)}  ${cr.failed}/${xr.failed}`,
      );
    }
    console.log(
      `bench:x402 — ${SECONDS} s per phase (x402 phases stop at ${budget} calls), anvil automine, ${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'}; latencies in ms`,
    );
    for (const r of rows) console.log(r);
  } finally {
    await t.close();
    await provider.close();
    await chain.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
