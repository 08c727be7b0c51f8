// Per-app x402 state, built once by buildApp(): the facilitator (remote when SVC_X402_FACILITATOR_URL is set,
// else in-process with the platform key), the payment terms read from the chain, and the chain module's
// hook that marks a settled transfer as never claimable as a deposit.
import { sql } from 'drizzle-orm';
import {
  type Address,
  getAddress,
  type Hex,
  isAddressEqual,
  parseAbi,
  parseAbiItem,
  parseEventLogs,
} from 'viem';
import { one, type Tx } from '../../db/index.js';
import type { AppDeps } from '../../deps.js';
import { liveProvider } from '../catalog/index.js';
import {
  NoPlatformKey,
  type ReadyChain,
  readyChain,
  sendPlatformTransaction,
  waitForPlatformTransaction,
} from '../chain/index.js';
import { recordSettledTransfers } from '../deposits/index.js';
import { createRemoteFacilitator, dependencyUnavailable, type Facilitator } from './facilitator.js';
import { createLocalFacilitator, type SettlementChain } from './local-facilitator.js';
import type { PaymentTerms } from './protocol.js';

/** The Transfer log of a settled payment, read from the chain (never taken from a facilitator's word). */
export interface SettledTransfer {
  chainId: number;
  txHash: string;
  logIndex: number;
  blockNumber: bigint;
  from: string;
  to: string;
  amount: bigint;
}

export interface X402Runtime {
  facilitator: Facilitator;
  terms(): Promise<PaymentTerms>;
  /** The endpoint's description for `resource.description`. */
  describe(providerId: string, slug: string): Promise<string>;
  /**
   * The Transfer log (payer → payTo, amount) of a settlement transaction, or undefined when the
   * transaction holds none. 503 when the RPC is down.
   */
  findSettledTransfer(txHash: string, payer: string, amount: bigint): Promise<SettledTransfer | undefined>;
}

const tokenMetadataAbi = parseAbi([
  'function name() view returns (string)',
  'function version() view returns (string)',
]);
const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
/** How long a settlement may take to be mined before the call answers 503 (the reservation is kept). */
const SETTLEMENT_WAIT_MS = 30_000;

function chainOf(deps: AppDeps): ReadyChain {
  return readyChain(deps.chain);
}

/** The chain module's one transaction path, as the in-process facilitator needs it. */
function settlementChain(deps: AppDeps): SettlementChain {
  const chain = chainOf(deps);
  return {
    publicClient: chain.publicClient,
    async sendPlatformTransaction({ to, data, reference }) {
      let sent: Awaited<ReturnType<typeof sendPlatformTransaction>>;
      try {
        sent = await sendPlatformTransaction(deps, { purpose: 'x402_settlement', reference, to, data });
      } catch (err) {
        if (err instanceof NoPlatformKey) {
          throw dependencyUnavailable('This service has no platform key to settle x402 payments with');
        }
        throw err;
      }
      const done = await waitForPlatformTransaction(deps, sent.id, SETTLEMENT_WAIT_MS);
      return { hash: done.txHash, status: done.status };
    },
  };
}

export function createX402Runtime(deps: AppDeps): X402Runtime {
  const facilitatorUrl = deps.config.x402.facilitatorUrl;
  // Built on first use: the devnet chain may be started after the app is built.
  let local: Facilitator | undefined;
  const localFacilitator = () => {
    local ??= createLocalFacilitator(settlementChain(deps), () => deps.clock.now());
    return local;
  };
  const facilitator: Facilitator = facilitatorUrl
    ? createRemoteFacilitator(facilitatorUrl)
    : {
        kind: 'local',
        verify: (p, r) => localFacilitator().verify(p, r),
        settle: (p, r) => localFacilitator().settle(p, r),
        supported: () => localFacilitator().supported(),
      };

  // The EIP-712 domain is a fact of the token: read once from the chain, not configured.
  let terms: Promise<PaymentTerms> | undefined;
  async function readTerms(): Promise<PaymentTerms> {
    const c = chainOf(deps);
    try {
      const [tokenName, tokenVersion] = await Promise.all([
        c.publicClient.readContract({ address: c.usdcAddress, abi: tokenMetadataAbi, functionName: 'name' }),
        c.publicClient.readContract({
          address: c.usdcAddress,
          abi: tokenMetadataAbi,
          functionName: 'version',
        }),
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
            WHERE e.provider_id = ${providerId} AND e.slug = ${slug} AND ${liveProvider('p')}`,
      );
      return row?.description ?? `${providerId}/${slug}`;
    },
    async findSettledTransfer(txHash, payer, amount) {
      const c = chainOf(deps);
      let receipt: Awaited<ReturnType<typeof c.publicClient.getTransactionReceipt>>;
      try {
        receipt = await c.publicClient.getTransactionReceipt({ hash: txHash as Hex });
      } catch {
        throw dependencyUnavailable('The chain RPC is unavailable; retry later');
      }
      if (receipt.status !== 'success') return undefined;
      const log = parseEventLogs({ abi: [transferEvent], logs: receipt.logs }).find(
        (l) =>
          isAddressEqual(l.address, c.usdcAddress) &&
          isAddressEqual(l.args.from, payer as Address) &&
          isAddressEqual(l.args.to, c.platformWallet) &&
          l.args.value === amount,
      );
      if (!log) return undefined;
      return {
        chainId: c.chainId,
        txHash: receipt.transactionHash.toLowerCase(),
        logIndex: log.logIndex,
        blockNumber: receipt.blockNumber,
        from: payer.toLowerCase(),
        to: c.platformWallet.toLowerCase(),
        amount,
      };
    },
  };
}

/**
 * Records a settled x402 transfer through the deposits module (kind 'x402' in chain_transfers), so it can
 * never be claimed as a deposit nor credited by the watcher (docs/x402.md). Returns 'deposit' when
 * the same log was credited as a deposit first (claimed between mining and here).
 */
export async function recordSettledTransfer(
  tx: Tx,
  deps: AppDeps,
  t: SettledTransfer,
): Promise<'recorded' | 'deposit'> {
  await recordSettledTransfers(tx, deps, {
    txHash: t.txHash,
    blockNumber: t.blockNumber,
    transfers: [{ logIndex: t.logIndex, from: t.from, amount: t.amount }],
  });
  const existing = await one<{ kind: string }>(
    tx,
    sql`SELECT kind FROM chain_transfers
        WHERE chain_id = ${t.chainId} AND tx_hash = ${t.txHash} AND log_index = ${t.logIndex}`,
  );
  return existing?.kind === 'deposit' ? 'deposit' : 'recorded';
}
