// The x402 wire format (docs/x402.md): what the 402 answer offers, and the payment headers a client
// sends back. Header codecs are @x402/core's own, so a stock client and we read the same bytes; decoding is
// wrapped so that every malformed header becomes a clear reason instead of an exception.

import { encodePaymentRequiredHeader, encodePaymentResponseHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired, PaymentRequirements, SettleResponse } from '@x402/core/types';
import { EVM_NETWORK_CHAIN_ID_MAP } from '@x402/evm/v1';

export type { PaymentPayload, PaymentRequired, PaymentRequirements, SettleResponse };

/** What the 402 offers depends on the chain the service runs on (docs/x402.md). */
export interface PaymentTerms {
  chainId: number;
  /** CAIP-2 network id, `eip155:<chainId>`. */
  network: string;
  asset: `0x${string}`;
  payTo: `0x${string}`;
  /** EIP-712 domain of the token, read from the token itself. */
  tokenName: string;
  tokenVersion: string;
}

/** Seconds added to the endpoint timeout in maxTimeoutSeconds: verification, the call, and settlement. */
export const SETTLEMENT_MARGIN_SECONDS = 60;

export function requirementsFor(
  terms: PaymentTerms,
  priceCredits: bigint,
  timeoutMs: number,
): PaymentRequirements {
  return {
    scheme: 'exact',
    network: terms.network as PaymentRequirements['network'],
    // 1 credit = 1 atomic USDC unit (docs/x402.md): no conversion.
    amount: priceCredits.toString(),
    asset: terms.asset,
    payTo: terms.payTo,
    maxTimeoutSeconds: Math.ceil(timeoutMs / 1000) + SETTLEMENT_MARGIN_SECONDS,
    extra: { name: terms.tokenName, version: terms.tokenVersion },
  };
}

export interface ResourceInfo {
  url: string;
  description: string;
  mimeType: string;
}

export function paymentRequired(resource: ResourceInfo, accepts: PaymentRequirements, error?: string) {
  const body: PaymentRequired = { x402Version: 2, ...(error ? { error } : {}), resource, accepts: [accepts] };
  return { body, header: encodePaymentRequiredHeader(body) };
}

export function paymentResponseHeader(settle: SettleResponse): string {
  return encodePaymentResponseHeader(settle);
}

export interface Eip3009Authorization {
  from: `0x${string}`;
  to: `0x${string}`;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: `0x${string}`;
}

/** One payment header, v1 or v2, normalised. `payload` is the v2 form a facilitator is given. */
export interface DecodedPayment {
  version: 1 | 2;
  scheme: string;
  network: string;
  /** v2: the requirements the client says it accepted (v1 carries none). */
  accepted: PaymentRequirements | undefined;
  authorization: Eip3009Authorization;
  signature: `0x${string}`;
  payload: PaymentPayload;
}

export class PaymentRejected extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const UINT = /^\d{1,78}$/;
const HEX = /^0x(?:[0-9a-fA-F]{2})+$/;
/** A header larger than this is not a payment (an EIP-3009 payload is well under 2 KiB). */
const MAX_HEADER_LENGTH = 16 * 1024;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** v1 network names (`base`, `base-sepolia`, …) → CAIP-2, as @x402/evm maps them. */
export function caip2Network(network: string): string | undefined {
  if (/^eip155:\d+$/.test(network)) return network;
  const chainId = (EVM_NETWORK_CHAIN_ID_MAP as Record<string, number>)[network];
  return chainId === undefined ? undefined : `eip155:${chainId}`;
}

/** `PAYMENT-SIGNATURE` (v2) or `X-PAYMENT` (v1) → a payment, or PaymentRejected with the reason. */
export function decodePaymentHeader(header: string, terms: PaymentTerms): DecodedPayment {
  const text = header.trim();
  if (text.length > MAX_HEADER_LENGTH || !BASE64.test(text)) {
    throw new PaymentRejected('invalid_payload', 'The payment header is not base64');
  }
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(text, 'base64').toString('utf8'));
  } catch {
    throw new PaymentRejected('invalid_payload', 'The payment header is not base64-encoded JSON');
  }
  if (!isObject(json))
    throw new PaymentRejected('invalid_payload', 'The payment header is not a JSON object');
  const version = json.x402Version;
  if (version !== 1 && version !== 2) {
    throw new PaymentRejected('invalid_x402_version', 'x402Version must be 1 or 2');
  }
  let accepted: PaymentRequirements | undefined;
  let scheme: unknown;
  let network: unknown;
  if (version === 2) {
    if (!isObject(json.accepted)) throw new PaymentRejected('invalid_payload', 'accepted is missing');
    accepted = json.accepted as PaymentRequirements;
    scheme = accepted.scheme;
    network = accepted.network;
  } else {
    scheme = json.scheme;
    network = json.network;
  }
  if (scheme !== 'exact')
    throw new PaymentRejected('unsupported_scheme', 'Only the "exact" scheme is accepted');
  const caip2 = typeof network === 'string' ? caip2Network(network) : undefined;
  if (caip2 !== terms.network) {
    throw new PaymentRejected(
      'invalid_network',
      `Unknown network ${JSON.stringify(network)}; this service is paid on ${terms.network}`,
    );
  }
  const inner = json.payload;
  if (!isObject(inner) || !isObject(inner.authorization) || typeof inner.signature !== 'string') {
    throw new PaymentRejected('invalid_payload', 'payload.authorization and payload.signature are required');
  }
  const a = inner.authorization;
  const ok =
    typeof a.from === 'string' &&
    ADDRESS.test(a.from) &&
    typeof a.to === 'string' &&
    ADDRESS.test(a.to) &&
    typeof a.value === 'string' &&
    UINT.test(a.value) &&
    typeof a.validAfter === 'string' &&
    UINT.test(a.validAfter) &&
    typeof a.validBefore === 'string' &&
    UINT.test(a.validBefore) &&
    typeof a.nonce === 'string' &&
    BYTES32.test(a.nonce);
  if (!ok) throw new PaymentRejected('invalid_payload', 'payload.authorization is malformed');
  if (!HEX.test(inner.signature))
    throw new PaymentRejected('invalid_payload', 'payload.signature is not hex');
  const authorization = a as unknown as Eip3009Authorization;
  const signature = inner.signature as `0x${string}`;
  const payload: PaymentPayload =
    version === 2
      ? (json as unknown as PaymentPayload)
      : {
          x402Version: 1,
          accepted: {
            scheme: 'exact',
            network: terms.network as PaymentRequirements['network'],
            amount: authorization.value,
            asset: terms.asset,
            payTo: authorization.to,
            maxTimeoutSeconds: 0,
            extra: {},
          },
          payload: { authorization, signature },
        };
  return { version, scheme: 'exact', network: terms.network, accepted, authorization, signature, payload };
}

/**
 * The client's accepted requirements must be ours. Each mismatch has its own reason (the evm
 * facilitator's reason strings where it has one).
 */
export function checkAccepted(payment: DecodedPayment, ours: PaymentRequirements): void {
  const asset = payment.accepted?.asset;
  if (asset !== undefined && asset.toLowerCase() !== ours.asset.toLowerCase()) {
    throw new PaymentRejected('invalid_exact_evm_asset_mismatch', `Pay with the asset ${ours.asset}`);
  }
  const payTo = payment.accepted?.payTo ?? payment.authorization.to;
  if (
    payTo.toLowerCase() !== ours.payTo.toLowerCase() ||
    payment.authorization.to.toLowerCase() !== ours.payTo.toLowerCase()
  ) {
    throw new PaymentRejected('invalid_exact_evm_recipient_mismatch', `Pay to ${ours.payTo}`);
  }
  const amount = payment.accepted?.amount ?? payment.authorization.value;
  if (amount !== ours.amount || payment.authorization.value !== ours.amount) {
    throw new PaymentRejected(
      'invalid_exact_evm_payload_authorization_value_mismatch',
      `The price is ${ours.amount} atomic units`,
    );
  }
}
