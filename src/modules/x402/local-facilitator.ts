// In-process facilitator (devnet default, docs/x402.md): verifies an EIP-3009 authorization against
// the requirements and the chain, and settles it with the platform key through the chain module's one
// transaction path (one nonce allocator shared with the faucet and payouts).
//
// Why not @x402/evm's ExactEvmScheme facilitator: its settle signs with its own wallet client (a second
// nonce source next to ours) and its failure diagnosis reads through Multicall3, which a fresh local chain
// does not have. We reuse its pieces instead: the EIP-712 types, the EIP-3009 ABI and its reason strings.
import { authorizationTypes, eip3009ABI } from '@x402/evm';
import {
  type Address,
  encodeFunctionData,
  getAddress,
  type Hex,
  isAddressEqual,
  type PublicClient,
  parseAbiItem,
  parseEventLogs,
  parseSignature,
  verifyTypedData,
} from 'viem';
import { AppError } from '../../errors/catalogue.js';
import {
  dependencyUnavailable,
  type Facilitator,
  type SupportedResponse,
  type VerifyResponse,
} from './facilitator.js';
import type {
  Eip3009Authorization,
  PaymentPayload,
  PaymentRequirements,
  SettleResponse,
} from './protocol.js';

/** What settlement needs from the chain module. */
export interface SettlementChain {
  publicClient: PublicClient;
  /**
   * Signs with the platform key through the chain module's one nonce allocator, stores, broadcasts and
   * waits for the outcome; idempotent per `reference`. Throws when the node refuses it before signing
   * (e.g. it would revert), AppError 503 when the RPC is down.
   */
  sendPlatformTransaction(tx: {
    to: Address;
    data: Hex;
    reference: string;
  }): Promise<{ hash: Hex; status: 'pending' | 'confirmed' | 'reverted' | 'dropped' }>;
}

/** An authorization must stay valid this long after verification (the evm facilitator's margin). */
const VALID_BEFORE_MARGIN_SECONDS = 6n;
/** How far back a reverted settlement looks for whoever used the authorization first. */
const AUTHORIZATION_USE_LOOKBACK_BLOCKS = 10_000n;

const authorizationUsedEvent = parseAbiItem(
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
);
const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

function authorizationOf(payload: PaymentPayload): { authorization: Eip3009Authorization; signature: Hex } {
  const inner = payload.payload as { authorization: Eip3009Authorization; signature: Hex };
  return { authorization: inner.authorization, signature: inner.signature };
}

function invalid(reason: string, payer: string, message?: string): VerifyResponse {
  return { isValid: false, invalidReason: reason, payer, ...(message ? { invalidMessage: message } : {}) };
}

function rpcUnavailable(err: unknown): AppError {
  if (err instanceof AppError) return err;
  return dependencyUnavailable('The chain RPC is unavailable; retry later');
}

export function createLocalFacilitator(
  chain: SettlementChain,
  now: () => Date = () => new Date(),
): Facilitator {
  const client = chain.publicClient;

  async function readAuthorizationState(token: Address, a: Eip3009Authorization): Promise<boolean> {
    return client.readContract({
      address: token,
      abi: eip3009ABI,
      functionName: 'authorizationState',
      args: [getAddress(a.from), a.nonce],
    });
  }

  /** The transaction that used this authorization on-chain, if one did (a cancellation is not a use). */
  async function findAuthorizationUse(token: Address, a: Eip3009Authorization): Promise<Hex | undefined> {
    const head = await client.getBlockNumber();
    const logs = await client.getLogs({
      address: token,
      event: authorizationUsedEvent,
      args: { authorizer: getAddress(a.from), nonce: a.nonce },
      fromBlock: head > AUTHORIZATION_USE_LOOKBACK_BLOCKS ? head - AUTHORIZATION_USE_LOOKBACK_BLOCKS : 0n,
      toBlock: head,
    });
    return logs[0]?.transactionHash ?? undefined;
  }

  async function verify(payload: PaymentPayload, req: PaymentRequirements): Promise<VerifyResponse> {
    const { authorization: a, signature } = authorizationOf(payload);
    const payer = a.from;
    if (req.scheme !== 'exact') return invalid('invalid_exact_evm_scheme', payer);
    const name = req.extra?.name;
    const version = req.extra?.version;
    if (typeof name !== 'string' || typeof version !== 'string') {
      return invalid('invalid_exact_evm_missing_eip712_domain', payer);
    }
    const chainId = Number(req.network.split(':')[1]);
    const token = getAddress(req.asset);
    let signed = false;
    try {
      signed = await verifyTypedData({
        address: getAddress(a.from),
        domain: { name, version, chainId, verifyingContract: token },
        types: authorizationTypes,
        primaryType: 'TransferWithAuthorization',
        message: {
          from: getAddress(a.from),
          to: getAddress(a.to),
          value: BigInt(a.value),
          validAfter: BigInt(a.validAfter),
          validBefore: BigInt(a.validBefore),
          nonce: a.nonce,
        },
        signature,
      });
    } catch {
      signed = false;
    }
    if (!signed)
      return invalid('invalid_exact_evm_signature', payer, 'The signature does not match the authorization');
    if (!isAddressEqual(getAddress(a.to), getAddress(req.payTo))) {
      return invalid('invalid_exact_evm_recipient_mismatch', payer);
    }
    const nowSeconds = BigInt(Math.floor(now().getTime() / 1000));
    if (BigInt(a.validBefore) < nowSeconds + VALID_BEFORE_MARGIN_SECONDS) {
      return invalid(
        'invalid_exact_evm_payload_authorization_valid_before',
        payer,
        'The authorization has expired',
      );
    }
    if (BigInt(a.validAfter) > nowSeconds) {
      return invalid(
        'invalid_exact_evm_payload_authorization_valid_after',
        payer,
        'The authorization is not yet valid',
      );
    }
    if (BigInt(a.value) !== BigInt(req.amount)) {
      return invalid('invalid_exact_evm_payload_authorization_value_mismatch', payer);
    }
    let balance: bigint;
    let used: boolean;
    try {
      [balance, used] = await Promise.all([
        client.readContract({
          address: token,
          abi: eip3009ABI,
          functionName: 'balanceOf',
          args: [getAddress(a.from)],
        }),
        readAuthorizationState(token, a),
      ]);
    } catch (err) {
      throw rpcUnavailable(err);
    }
    if (used)
      return invalid('invalid_exact_evm_nonce_already_used', payer, 'This authorization was already used');
    if (balance < BigInt(a.value)) {
      return invalid('invalid_exact_evm_insufficient_balance', payer, 'The payer does not hold enough USDC');
    }
    return { isValid: true, payer };
  }

  async function settle(payload: PaymentPayload, req: PaymentRequirements): Promise<SettleResponse> {
    const { authorization: a, signature } = authorizationOf(payload);
    const token = getAddress(req.asset);
    const network = req.network;
    const payer = a.from;
    const checked = await verify(payload, req);
    if (!checked.isValid) {
      // Verified before the call; used since then by someone else's submission of the same signature?
      if (checked.invalidReason === 'invalid_exact_evm_nonce_already_used') {
        const usedBy = await findAuthorizationUse(token, a).catch((err) => {
          throw rpcUnavailable(err);
        });
        if (usedBy) return { success: true, transaction: usedBy, network, payer };
      }
      return {
        success: false,
        errorReason: checked.invalidReason ?? 'invalid_payment',
        transaction: '',
        network,
        payer,
      };
    }
    const sig = parseSignature(signature);
    const data = encodeFunctionData({
      abi: eip3009ABI,
      functionName: 'transferWithAuthorization',
      args: [
        getAddress(a.from),
        getAddress(a.to),
        BigInt(a.value),
        BigInt(a.validAfter),
        BigInt(a.validBefore),
        a.nonce,
        Number(sig.v ?? BigInt(sig.yParity + 27)),
        sig.r,
        sig.s,
      ],
    });
    let sent: Awaited<ReturnType<SettlementChain['sendPlatformTransaction']>>;
    try {
      sent = await chain.sendPlatformTransaction({
        to: token,
        data,
        reference: `${network}:${token.toLowerCase()}:${a.from.toLowerCase()}:${a.nonce.toLowerCase()}`,
      });
    } catch (err) {
      // Refused before broadcast (gas estimation hit the revert): was the authorization used first?
      return afterRevert(token, a, network, payer, err);
    }
    // Stored and broadcast but not mined in time: the outcome is unknown, nothing may be decided.
    if (sent.status === 'pending')
      throw dependencyUnavailable('The settlement is not mined yet; retry later');
    if (sent.status !== 'confirmed') return afterRevert(token, a, network, payer, undefined);
    const hash = sent.hash;
    let receipt: Awaited<ReturnType<PublicClient['getTransactionReceipt']>>;
    try {
      receipt = await client.getTransactionReceipt({ hash });
    } catch (err) {
      throw rpcUnavailable(err);
    }
    const transfers = parseEventLogs({ abi: [transferEvent], logs: receipt.logs }).filter(
      (log) =>
        isAddressEqual(log.address, token) &&
        isAddressEqual(log.args.from, getAddress(a.from)) &&
        isAddressEqual(log.args.to, getAddress(a.to)) &&
        log.args.value === BigInt(a.value),
    );
    if (transfers.length === 0) {
      return {
        success: false,
        errorReason: 'invalid_exact_evm_transfer_event_mismatch',
        transaction: hash,
        network,
        payer,
      };
    }
    return { success: true, transaction: hash, network, payer };
  }

  /** docs/x402.md: a reverted settlement reads authorizationState; used by a transfer = paid. */
  async function afterRevert(
    token: Address,
    a: Eip3009Authorization,
    network: PaymentRequirements['network'],
    payer: string,
    cause: unknown,
  ): Promise<SettleResponse> {
    let used: boolean;
    let usedBy: Hex | undefined;
    try {
      used = await readAuthorizationState(token, a);
      usedBy = used ? await findAuthorizationUse(token, a) : undefined;
    } catch (err) {
      throw rpcUnavailable(err);
    }
    if (usedBy) return { success: true, transaction: usedBy, network, payer };
    if (cause instanceof AppError) throw cause;
    const message = cause instanceof Error ? cause.message : '';
    const reason = used
      ? 'invalid_exact_evm_nonce_already_used'
      : /exceeds balance|insufficient/i.test(message)
        ? 'invalid_exact_evm_insufficient_balance'
        : 'invalid_exact_evm_transaction_failed';
    return { success: false, errorReason: reason, transaction: '', network, payer };
  }

  return {
    kind: 'local',
    verify: async (payload, req) => {
      try {
        return await verify(payload, req);
      } catch (err) {
        throw rpcUnavailable(err);
      }
    },
    settle,
    async supported(): Promise<SupportedResponse> {
      const chainId = await client.getChainId();
      return {
        kinds: [
          { x402Version: 2, scheme: 'exact', network: `eip155:${chainId}` },
          { x402Version: 1, scheme: 'exact', network: `eip155:${chainId}` },
        ],
        extensions: [],
        signers: {},
      } as unknown as SupportedResponse;
    },
  };
}
