// Per-app x402 state, built once by buildApp(): the facilitator (remote when SVC_X402_FACILITATOR_URL is set,
// else in-process with the platform key), the payment terms read from the chain, and the chain module's
// hook that marks a settled transfer as never claimable as a deposit.
import { sql } from 'drizzle-orm';
import { type Address, getAddress, type PublicClient, parseAbi } from 'viem';
import { type Executor, one } from '../../db/index.js';
import type { AppDeps } from '../../deps.js';
import { createRemoteFacilitator, dependencyUnavailable, type Facilitator } from './facilitator.js';
import { createLocalFacilitator, type SettlementChain } from './local-facilitator.js';
import type { PaymentTerms } from './protocol.js';

/** What x402 needs from the chain module (adapted at wiring time, see index.ts). */
export interface X402Chain extends SettlementChain {
  chainId: number;
  usdcAddress: Address;
  platformWallet: Address;
  /** Records a transfer the service settled so it can never be credited as a deposit (DESIGN.md 11). */
  recordSettledTransfer(ex: Executor, transfer: SettledTransfer): Promise<void>;
}

export interface SettledTransfer {
  txHash: string;
  /** lowercase */
  payer: string;
  amount: bigint;
}

export interface X402Runtime {
  facilitator: Facilitator;
  terms(): Promise<PaymentTerms>;
  /** The endpoint's description for `resource.description`. */
  describe(providerId: string, slug: string): Promise<string>;
  recordSettledTransfer(ex: Executor, transfer: SettledTransfer): Promise<void>;
}

const tokenMetadataAbi = parseAbi([
  'function name() view returns (string)',
  'function version() view returns (string)',
]);

export function createX402Runtime(deps: AppDeps, chain: () => X402Chain | undefined): X402Runtime {
  const requireChain = (): X402Chain => {
    const c = chain();
    if (!c) throw dependencyUnavailable('The chain is not available; retry later');
    return c;
  };
  const facilitatorUrl = deps.config.x402.facilitatorUrl;
  const lazyLocal = (): Facilitator => createLocalFacilitator(requireChain(), () => deps.clock.now());
  let local: Facilitator | undefined;
  const facilitator: Facilitator = facilitatorUrl
    ? createRemoteFacilitator(facilitatorUrl)
    : {
        kind: 'local',
        verify: (p, r) => {
          local ??= lazyLocal();
          return local.verify(p, r);
        },
        settle: (p, r) => {
          local ??= lazyLocal();
          return local.settle(p, r);
        },
        supported: () => {
          local ??= lazyLocal();
          return local.supported();
        },
      };

  // The EIP-712 domain is a fact of the token: read once from the chain, not configured.
  let terms: Promise<PaymentTerms> | undefined;
  async function readTerms(): Promise<PaymentTerms> {
    const c = requireChain();
    const client: PublicClient = c.publicClient;
    try {
      const [tokenName, tokenVersion] = await Promise.all([
        client.readContract({ address: c.usdcAddress, abi: tokenMetadataAbi, functionName: 'name' }),
        client.readContract({ address: c.usdcAddress, abi: tokenMetadataAbi, functionName: 'version' }),
      ]);
      return {
        chainId: c.chainId,
        network: `eip155:${c.chainId}`,
        asset: getAddress(c.usdcAddress),
        payTo: getAddress(c.platformWallet),
        tokenName,
        tokenVersion,
      };
    } catch {
      throw dependencyUnavailable('The chain RPC is unavailable; retry later');
    }
  }

  return {
    facilitator,
    terms() {
      terms ??= readTerms().catch((err) => {
        terms = undefined;
        throw err;
      });
      return terms;
    },
    async describe(providerId, slug) {
      const row = await one<{ description: string }>(
        deps.db.orm,
        sql`SELECT coalesce(nullif(e.description, ''), p.name) AS description
            FROM endpoints e JOIN providers p ON p.id = e.provider_id
            WHERE e.provider_id = ${providerId} AND e.slug = ${slug}`,
      );
      return row?.description ?? `${providerId}/${slug}`;
    },
    recordSettledTransfer: (ex, transfer) => requireChain().recordSettledTransfer(ex, transfer),
  };
}
