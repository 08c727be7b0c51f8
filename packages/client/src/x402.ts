// x402 payer for agents without an account: each call is paid on its own with a signed USDC authorization
// (HTTP 402 → sign → retry), through the stock x402 client. `@x402/fetch` and `@x402/evm` are optional
// peers, loaded only when a payer is created, so the rest of the client never needs them.
import type { ClientEvmSigner } from '@x402/evm';
import type { ExecuteAnswer, ExecuteResult } from './client.js';
import { errorFromResponse } from './errors.js';
import { usdcToCredits } from './money.js';

export interface X402PayerOptions {
  /** The service's base URL, e.g. http://localhost:8080 */
  baseUrl: string;
  /** Signs the payment authorizations offline: a viem account (`privateKeyToAccount(...)`). */
  signer: ClientEvmSigner;
  /** The most one call may cost, in USDC (default "1"). A dearer offer is refused before signing. */
  maxPriceUsdc?: string;
  /**
   * The USDC the service is paid in, when the x402 client does not know it (a devnet, a test token):
   * `{network: "eip155:<chain id>", address}`, or `"devnet"` to read it from the service's `GET /v1/devnet`.
   * Omitted: only assets the x402 client knows (USDC on Base, …) are paid.
   */
  asset?: { network: string; address: string } | 'devnet';
  fetch?: typeof fetch;
}

/** What the service answered a paid call, plus the settlement (`PAYMENT-RESPONSE`). */
export interface X402CallResult extends ExecuteResult {
  /** The on-chain settlement; absent when nothing was paid (see docs/x402.md). */
  payment: { success: boolean; transaction: string; network: string; payer?: string } | undefined;
}

export interface X402Payer {
  /** A fetch that pays any x402 resource it is pointed at (within the payer's limits). */
  fetch: typeof fetch;
  /** One paid call of `POST /x402/:providerId/:slug` with `params` as the body. */
  call(providerId: string, endpointSlug: string, params?: Record<string, unknown>): Promise<X402CallResult>;
}

const enc = encodeURIComponent;

export async function createX402Payer(opts: X402PayerOptions): Promise<X402Payer> {
  const [{ wrapFetchWithPayment, x402Client, decodePaymentResponseHeader }, { registerExactEvmScheme }] =
    await Promise.all([import('@x402/fetch'), import('@x402/evm/exact/client')]);
  const baseUrl = opts.baseUrl.replace(/\/$/, '');
  const plainFetch = opts.fetch ?? fetch;
  const capAtomic = usdcToCredits(opts.maxPriceUsdc ?? '1').toString(); // USDC has 6 decimals, like credits
  let asset = opts.asset;
  if (asset === 'devnet') {
    const res = await plainFetch(`${baseUrl}/v1/devnet`);
    const body = (await res.json().catch(() => undefined)) as
      | { data?: { chain_id: number; usdc_address: string } }
      | undefined;
    if (!res.ok || !body?.data) throw errorFromResponse(res.status, body, res.headers);
    asset = { network: `eip155:${body.data.chain_id}`, address: body.data.usdc_address };
  }
  const client = new x402Client().setSpendControls({
    maxAmountPerPayment: `$${opts.maxPriceUsdc ?? '1'}`,
    ...(asset
      ? {
          allowedAssets: [
            {
              network: asset.network as `${string}:${string}`,
              asset: asset.address,
              maxAmountPerPayment: capAtomic,
            },
          ],
        }
      : {}),
  });
  registerExactEvmScheme(client, { signer: opts.signer });
  const payingFetch = wrapFetchWithPayment(plainFetch, client);

  return {
    fetch: payingFetch,
    async call(providerId, endpointSlug, params = {}) {
      const res = await payingFetch(`${baseUrl}/x402/${enc(providerId)}/${enc(endpointSlug)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(params),
      });
      const body = (await res.json().catch(() => undefined)) as
        | (Partial<ExecuteAnswer> & { error?: unknown })
        | undefined;
      // A provider's own 4xx is paid and answered in the execute shape; anything else not 2xx is an error.
      if (!res.ok && (body?.svc === undefined || body.error !== undefined)) {
        throw errorFromResponse(res.status, body, res.headers);
      }
      const header = res.headers.get('PAYMENT-RESPONSE') ?? res.headers.get('X-PAYMENT-RESPONSE');
      return {
        status: res.status,
        svc: body?.svc as ExecuteAnswer['svc'],
        data: body?.data,
        requestId: res.headers.get('x-request-id') ?? undefined,
        payment: header ? decodePaymentResponseHeader(header) : undefined,
      };
    },
  };
}
