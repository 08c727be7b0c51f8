// One x402 call (docs/x402.md): params validated like execute → payment decoded and matched to our
// requirements → replay of a settled payment answered from the store → verified → nonce reserved (unique
// in the database) → provider called → charged outcomes (2xx/4xx) settled on-chain, others released with
// nothing paid. Every refusal of the payment is a 402 with the reason, and changes nothing.
import type { Executor } from '../../db/index.js';
import type { AppDeps } from '../../deps.js';
import { AppError } from '../../errors/catalogue.js';
import { newId } from '../../lib/ids.js';
import { creditsToUsdc } from '../../lib/money.js';
import { accountsOfWallets } from '../auth/index.js';
import {
  checkMaxPrice,
  type ExecutionRuntime,
  failureOf,
  forwardToProvider,
  type ProviderResult,
  type ResolvedEndpoint,
  validateParams,
} from '../execution/index.js';
import { countSuccessfulPayment, recordWalletPaidCall } from '../ledger/index.js';
import {
  checkAccepted,
  type DecodedPayment,
  decodePaymentHeader,
  PaymentRejected,
  type PaymentRequirements,
  paymentRequired,
  paymentResponseHeader,
  type ResourceInfo,
  requirementsFor,
  SETTLEMENT_MARGIN_SECONDS,
} from './protocol.js';
import {
  findPayment,
  markSettled,
  type PaymentKey,
  type PaymentRow,
  releasePayment,
  reservePayment,
} from './repo.js';
import { recordSettledTransfer, type X402Runtime } from './runtime.js';

export interface X402CallInput {
  providerId: string;
  endpointSlug: string;
  body: unknown;
  /** `PAYMENT-SIGNATURE` (v2) or, failing that, `X-PAYMENT` (v1). */
  paymentHeader: string | undefined;
  /** `X-Svc-Max-Price-Usdc`: checked before any payment is asked for or taken. */
  maxPriceUsdc?: string | undefined;
  /** Absolute URL of this resource, as the 402 names it. */
  resourceUrl: string;
  /** Counts the call against the payer wallet's rate limit (throws 429), once the signature is proven. */
  checkWalletLimit: (payer: string) => Promise<void>;
  elapsedMs: () => number;
}

export interface X402Answer {
  status: number;
  headers: Record<string, string>;
  /** JSON text */
  body: string;
}

/** How often a request that found the authorization reserved by another looks again. */
const RESERVED_POLL_MS = 50;

export async function handleX402Call(
  deps: AppDeps,
  rt: X402Runtime,
  exe: ExecutionRuntime,
  input: X402CallInput,
): Promise<X402Answer> {
  const endpoint = await exe.resolver.resolve(deps.db.orm, input.providerId, input.endpointSlug);
  checkMaxPrice(endpoint, input.maxPriceUsdc);
  // Bad params cost nothing and reserve nothing: checked before any payment is looked at.
  const params = validateParams(endpoint, input.body);
  const terms = await rt.terms();
  const requirements = requirementsFor(terms, endpoint.priceCredits, endpoint.timeoutMs);
  const resource: ResourceInfo = {
    url: input.resourceUrl,
    description: await rt.describe(endpoint.providerId, endpoint.slug),
    mimeType: 'application/json',
  };
  const refuse = (reason?: string, message?: string) => answer402(resource, requirements, reason, message);
  if (input.paymentHeader === undefined) return refuse();

  let payment: DecodedPayment;
  try {
    payment = decodePaymentHeader(input.paymentHeader, terms);
    checkAccepted(payment, requirements);
  } catch (err) {
    if (err instanceof PaymentRejected) return refuse(err.reason, err.message);
    throw err;
  }
  const key: PaymentKey = {
    chainId: terms.chainId,
    asset: terms.asset.toLowerCase(),
    payer: payment.authorization.from.toLowerCase(),
    nonce: payment.authorization.nonce.toLowerCase(),
  };
  const signature = payment.signature.toLowerCase();

  const prior = await findPayment(deps.db.orm, key);
  if (prior?.status === 'settled') return replayOrRefuse(prior, signature, refuse);

  const verdict = await rt.facilitator.verify(payment.payload, requirements);
  if (!verdict.isValid) {
    // A concurrent replay of this very payment may have settled it on-chain since we looked: its answer
    // is ours too.
    const racing = await findPayment(deps.db.orm, key);
    if (racing && racing.signature === signature) {
      const done =
        racing.status === 'settled' ? racing : await waitWhileReserved(deps, key, racing.deadline_at);
      if (done?.status === 'settled') return replayOrRefuse(done, signature, refuse);
    }
    return refuse(
      verdict.invalidReason ?? 'invalid_payment',
      verdict.invalidMessage ?? 'The payment was refused',
    );
  }
  await input.checkWalletLimit(key.payer);

  const callId = newId('call');
  const paymentId = newId('pay');
  const startedAt = deps.clock.now();
  const deadlineAt = new Date(startedAt.getTime() + endpoint.timeoutMs + SETTLEMENT_MARGIN_SECONDS * 1000);
  const reservation = {
    ...key,
    id: paymentId,
    signature,
    payTo: requirements.payTo.toLowerCase(),
    amountCredits: endpoint.priceCredits,
    providerId: endpoint.providerId,
    endpointSlug: endpoint.slug,
    callId,
    deadlineAt,
  };
  // One signed payment buys one call: whoever inserts the reservation runs it; the others wait for its
  // outcome and answer the stored response (or take over an authorization that was released unused).
  while (!(await reservePayment(deps.db.orm, reservation))) {
    const row = await waitWhileReserved(deps, key, deadlineAt);
    if (row?.status === 'settled') return replayOrRefuse(row, signature, refuse);
    if (row) return refuse('payment_in_progress', 'This payment is paying for a call that is still running');
  }

  const result = await forwardToProvider(exe.agent, {
    endpoint,
    callId,
    params,
    nowSeconds: Math.floor(deps.clock.now().getTime() / 1000),
  });
  const finishedAt = deps.clock.now();
  const callRecord = {
    callId,
    paymentId,
    providerId: endpoint.providerId,
    endpointSlug: endpoint.slug,
    priceCredits: endpoint.priceCredits,
    latencyMs: result.latencyMs,
    createdAt: startedAt,
    finishedAt,
  };

  const failure = failureOf(result);
  if (failure) {
    // Not charged: nothing is settled, and the unused authorization is free again.
    await deps.db.orm.transaction(async (tx) => {
      await releasePayment(tx, paymentId);
      await recordWalletPaidCall(tx, {
        ...callRecord,
        outcome: failure.outcome,
        providerStatus: failure.providerStatus,
        refundReason: failure.reason,
      });
    });
    throw new AppError(
      failure.code,
      failure.code === 'SVC-EXE-005'
        ? 'Provider timed out; the payment was not settled'
        : 'Provider failed; the payment was not settled',
      {
        call_id: callId,
        provider_id: endpoint.providerId,
        endpoint: endpoint.slug,
        charged_usdc: '0.000000',
        reason: failure.reason,
        ...(failure.providerStatus !== null ? { provider_status: failure.providerStatus } : {}),
      },
    );
  }

  const response = result as Extract<ProviderResult, { kind: 'response' }>;
  const outcome = response.status < 300 ? 'success' : 'client_error';
  // An unknown outcome (facilitator/RPC unreachable) throws 503 and keeps the reservation: the payment
  // may yet land, so the same authorization must not buy a second call.
  const settled = await rt.facilitator.settle(payment.payload, requirements);
  if (!settled.success) {
    await deps.db.orm.transaction(async (tx) => {
      await releasePayment(tx, paymentId);
      await recordWalletPaidCall(tx, {
        ...callRecord,
        outcome,
        providerStatus: response.status,
        refundReason: null,
      });
    });
    // The provider's body is withheld: it was not paid for.
    return refuse(settled.errorReason ?? 'settlement_failed', settled.errorMessage ?? 'Settlement failed');
  }

  // The transfer is read back from the chain: a facilitator's word is not an on-chain fact.
  const transfer = await rt.findSettledTransfer(settled.transaction, key.payer, endpoint.priceCredits);
  if (!transfer) {
    await deps.db.orm.transaction(async (tx) => {
      await releasePayment(tx, paymentId);
      await recordWalletPaidCall(tx, {
        ...callRecord,
        outcome,
        providerStatus: response.status,
        refundReason: null,
      });
    });
    return refuse(
      'invalid_exact_evm_transfer_event_mismatch',
      'The settlement holds no transfer of the price',
    );
  }
  const status = response.status < 300 ? 200 : response.status;
  const body = providerAnswer(endpoint, callId, response, transfer.txHash, key.payer, terms.network, input);
  const paymentHeader = paymentResponseHeader({
    success: true,
    transaction: transfer.txHash,
    network: requirements.network,
    payer: payment.authorization.from,
  });
  const outcomeOfSettlement = await deps.db.orm.transaction(async (tx) => {
    // Recorded first: a transfer already credited as a deposit (claimed in the moment between mining and
    // here) has paid for credits, not for this call.
    if ((await recordSettledTransfer(tx, deps, transfer)) === 'deposit') {
      const claimed = answer402(
        resource,
        requirements,
        'payment_claimed_as_deposit',
        'This transfer was credited to an account as a deposit; it cannot pay for a call too',
      );
      await markSettled(tx, {
        id: paymentId,
        txHash: transfer.txHash,
        responseStatus: claimed.status,
        responseBody: claimed.body,
        paymentResponse: '',
        settledAt: deps.clock.now(),
      });
      return { kind: 'claimed' as const, answer: claimed };
    }
    await markSettled(tx, {
      id: paymentId,
      txHash: transfer.txHash,
      responseStatus: status,
      responseBody: body,
      paymentResponse: paymentHeader,
      settledAt: deps.clock.now(),
    });
    await recordWalletPaidCall(tx, {
      ...callRecord,
      outcome,
      providerStatus: response.status,
      refundReason: null,
    });
    return { kind: 'paid' as const, account: await countSettledPaymentForWallet(tx, key.payer) };
  });
  if (outcomeOfSettlement.kind === 'claimed') return outcomeOfSettlement.answer;
  const { account } = outcomeOfSettlement;
  if (account) {
    deps.events.emit('payments.counted', {
      accountId: account.id,
      successfulPayments: account.successfulPayments,
    });
  }
  return { status, headers: paymentHeaders(paymentHeader), body };
}

function paymentHeaders(paymentResponse: string): Record<string, string> {
  // v2 name, and the v1 name older clients read.
  return { 'PAYMENT-RESPONSE': paymentResponse, 'X-PAYMENT-RESPONSE': paymentResponse };
}

function answer402(
  resource: ResourceInfo,
  requirements: PaymentRequirements,
  reason?: string,
  message?: string,
): X402Answer {
  const { body, header } = paymentRequired(resource, requirements, reason);
  return {
    status: 402,
    headers: { 'PAYMENT-REQUIRED': header, 'Cache-Control': 'no-store' },
    body: JSON.stringify(message ? { ...body, message } : body),
  };
}

function replayOrRefuse(
  row: PaymentRow,
  signature: string,
  refuse: (reason: string, message: string) => X402Answer,
): X402Answer {
  // Only the very same signed payment gets the stored answer; anyone else reusing the nonce is refused.
  if (row.signature !== signature || row.response_status === null || row.response_body === null) {
    return refuse('invalid_exact_evm_nonce_already_used', 'This authorization nonce was already used');
  }
  return {
    status: row.response_status,
    headers: { ...paymentHeaders(row.payment_response ?? ''), 'Idempotent-Replayed': 'true' },
    body: row.response_body,
  };
}

/** Waits until the reservation held by another request settles or is released (undefined), or the deadline. */
async function waitWhileReserved(
  deps: AppDeps,
  key: PaymentKey,
  deadlineAt: Date | string,
): Promise<PaymentRow | undefined> {
  for (;;) {
    const row = await findPayment(deps.db.orm, key);
    if (!row || row.status === 'settled') return row;
    if (Date.now() >= Math.min(new Date(deadlineAt).getTime(), new Date(row.deadline_at).getTime()))
      return row;
    await new Promise((resolve) => setTimeout(resolve, RESERVED_POLL_MS));
  }
}

function providerAnswer(
  endpoint: ResolvedEndpoint,
  callId: string,
  response: Extract<ProviderResult, { kind: 'response' }>,
  transaction: string,
  payer: string,
  network: string,
  input: X402CallInput,
): string {
  const svc = {
    call_id: callId,
    provider_id: endpoint.providerId,
    endpoint: endpoint.slug,
    charged_usdc: creditsToUsdc(endpoint.priceCredits),
    latency_ms: Math.round(input.elapsedMs()),
    payment: { network, transaction, payer },
  };
  const dataText = response.isJson
    ? response.text
    : response.text === ''
      ? 'null'
      : JSON.stringify({ raw_body: response.text });
  return `{"svc":${JSON.stringify(svc)},"data":${dataText}}`;
}

/**
 * A settled payment counts for the payer's trust tier (docs/x402.md) when the wallet belongs to an
 * account: the same counter a settled credit call raises. Returns the account and its new counter.
 */
async function countSettledPaymentForWallet(
  ex: Executor,
  wallet: string,
): Promise<{ id: string; successfulPayments: bigint } | undefined> {
  const accountId = (await accountsOfWallets(ex, [wallet])).get(wallet.toLowerCase());
  if (!accountId) return undefined;
  const successfulPayments = await countSuccessfulPayment(ex, accountId);
  return successfulPayments === undefined ? undefined : { id: accountId, successfulPayments };
}
