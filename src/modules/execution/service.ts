// Paid execution (docs/execution.md):
// resolve → validate → atomic debit (limits, balance, ledger entry, pending call row) → forward → settle.
// Charged outcomes (2xx, 4xx) are group-committed; refunds are written in their own transaction before
// the error is answered.
import { Type } from '@sinclair/typebox';
import { isUniqueViolation } from '../../db/index.js';
import type { AppDeps } from '../../deps.js';
import { AppError, errorBody } from '../../errors/catalogue.js';
import { fieldErrors } from '../../errors/field-errors.js';
import { utcDay } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { creditsToUsdc, creditsToUsdcShort, isUsdcString, usdcToCredits } from '../../lib/money.js';
import {
  type CallResultRecord,
  debitForCall,
  explainRefusal,
  type RefundReason,
  type Refusal,
} from '../ledger/index.js';
import { forwardToProvider, type ProviderResult } from './forward.js';
import { replayFor, requestHash, type StoredResponse } from './idempotency.js';
import { refundAndRecord } from './refund.js';
import type { ResolvedEndpoint } from './resolve.js';
import type { ExecutionContext, ExecutionRuntime } from './runtime.js';

export interface ExecuteInput {
  accountId: string;
  apiKeyId: string | null;
  providerId: string;
  endpointSlug: string;
  body: unknown;
  idempotencyKey: string | undefined;
  /** `X-Svc-Max-Price-Usdc`: the most the caller accepts to pay (the price it saw). */
  maxPriceUsdc?: string | undefined;
  /** Milliseconds since the request arrived (for svc.latency_ms). */
  elapsedMs: () => number;
  /**
   * Called once the debit statement has decided (debited, replayed or refused with its reason): from then
   * on the key's validity and the account's status have been checked against the database.
   */
  onAuthChecked?: () => void;
}

export interface ExecuteResult {
  status: number;
  /** JSON text of the response. */
  body: string;
  replayed: boolean;
}

/** How many times a refused debit is re-tried when nothing blocks it on re-reading (a refund raced). */
const DEBIT_ATTEMPTS = 3;

export async function executeCall(app: ExecutionContext, input: ExecuteInput): Promise<ExecuteResult> {
  const { deps, execution: rt } = app;
  const endpoint = await rt.resolver.resolve(deps.db.orm, input.providerId, input.endpointSlug);
  checkMaxPrice(endpoint, input.maxPriceUsdc);
  const params = validateParams(endpoint, input.body);

  const key = input.idempotencyKey;
  const hash = key === undefined ? null : requestHash(endpoint.providerId, endpoint.slug, params);
  const callId = newId('call');
  const now = deps.clock.now();

  let balanceAfter: bigint;
  try {
    balanceAfter = await debit(deps, rt, endpoint, input, callId, now, key ?? null, hash);
    input.onAuthChecked?.();
  } catch (err) {
    // A refusal explained by the database, or a key already claimed (its insert ran only after the key
    // and status checks passed): auth has been decided either way.
    if (err instanceof AppError || isUniqueViolation(err)) input.onAuthChecked?.();
    if (err instanceof AppError) deps.events.emit('call.finished', { outcome: 'refused', credits: 0n });
    if (key !== undefined && hash !== null && isUniqueViolation(err)) {
      const stored: StoredResponse = await replayFor(deps.db.orm, input.accountId, key, hash);
      return { ...stored, replayed: true };
    }
    throw err;
  }

  const result = await forwardToProvider(rt.agent, {
    endpoint,
    callId,
    params,
    nowSeconds: Math.floor(deps.clock.now().getTime() / 1000),
  });
  const finishedAt = deps.clock.now();
  const keep = key !== undefined;

  const failure = failureOf(result);
  if (failure) {
    const { code, reason, outcome, providerStatus } = failure;
    const details = {
      call_id: callId,
      provider_id: endpoint.providerId,
      endpoint: endpoint.slug,
      refunded_usdc: creditsToUsdc(endpoint.priceCredits),
      reason,
      ...(providerStatus !== null ? { provider_status: providerStatus } : {}),
    };
    const error = new AppError(code, undefined, details);
    try {
      await refundAndRecord(deps, {
        callId,
        outcome,
        reason,
        providerStatus,
        latencyMs: result.latencyMs,
        finishedAt,
        ...(keep
          ? {
              responseStatus: error.status,
              responseBody: JSON.stringify(errorBody(code, error.message, details)),
            }
          : {}),
      });
    } catch {
      deps.events.emit('call.finished', { outcome: 'refund_pending', credits: endpoint.priceCredits });
      // The database is down: the call row stays pending and the sweeper refunds it once the deadline
      // passes (docs/execution.md). The agent still gets the provider's 502/504, told the refund is pending
      // (the error handler logs it with details.refund).
      throw new AppError(
        code,
        code === 'SVC-EXE-005'
          ? 'Provider timed out; the refund is pending'
          : 'Provider failed; the refund is pending',
        { ...details, refund: 'pending' },
      );
    }
    deps.events.emit('call.finished', { outcome: 'refunded', credits: endpoint.priceCredits });
    throw error;
  }

  // A 2xx or 4xx answer with a readable body: charged.
  const response = result as Extract<ProviderResult, { kind: 'response' }>;
  const svc = {
    call_id: callId,
    provider_id: endpoint.providerId,
    endpoint: endpoint.slug,
    charged_usdc: creditsToUsdc(endpoint.priceCredits),
    remaining_balance_usdc: creditsToUsdc(balanceAfter),
    latency_ms: Math.round(input.elapsedMs()),
  };
  // The body was parsed to check it; splice its text rather than serialising it again.
  const dataText = response.isJson
    ? response.text
    : response.text === ''
      ? 'null'
      : JSON.stringify({ raw_body: response.text });
  const body = `{"svc":${JSON.stringify(svc)},"data":${dataText}}`;
  const status = response.status < 300 ? 200 : response.status;
  const record: CallResultRecord = {
    callId,
    outcome: response.status < 300 ? 'success' : 'client_error',
    providerStatus: response.status,
    latencyMs: response.latencyMs,
    finishedAt,
    ...(keep ? { responseStatus: status, responseBody: body } : {}),
  };
  // The money moved with the debit; the outcome row follows in the next group write (settle-queue.ts).
  // A call with an Idempotency-Key waits for it, so that a retry finds the stored answer.
  if (keep) await rt.settleQueue.settle(record);
  else rt.settleQueue.record(record);
  deps.events.emit('call.finished', { outcome: 'charged', credits: endpoint.priceCredits });
  return { status, body, replayed: false };
}

/** The header that carries the most a caller accepts to pay for one call. */
export const MAX_PRICE_HEADER = 'x-svc-max-price-usdc';
/** Its route schema; the format is checked by checkMaxPrice for a clear message. */
export const MaxPriceHeader = Type.Optional(
  Type.String({ maxLength: 40, description: 'The most you accept to pay for this call, in USDC' }),
);

/**
 * The caller's price guard, checked before anything is charged or forwarded: a price raised since the
 * caller looked (an approved repricing) answers 409 SVC-EXE-006 instead of charging more. A malformed
 * value is 400. No header, no guard.
 */
export function checkMaxPrice(
  endpoint: Pick<ResolvedEndpoint, 'priceCredits'>,
  maxPriceUsdc: string | undefined,
) {
  if (maxPriceUsdc === undefined) return;
  const value = maxPriceUsdc.trim();
  if (!isUsdcString(value)) {
    const message = 'must be a USDC amount with at most 6 decimals, e.g. "0.01"';
    throw new AppError('SVC-VAL-001', `${MAX_PRICE_HEADER} ${message}`, {
      errors: [{ path: MAX_PRICE_HEADER, message }],
    });
  }
  const max = usdcToCredits(value);
  if (endpoint.priceCredits > max) {
    throw new AppError(
      'SVC-EXE-006',
      `The endpoint costs ${creditsToUsdcShort(endpoint.priceCredits)} USDC, more than ${MAX_PRICE_HEADER} ${value}`,
      { price_usdc: creditsToUsdcShort(endpoint.priceCredits), max_price_usdc: value },
    );
  }
}

export function validateParams(endpoint: ResolvedEndpoint, body: unknown): Record<string, unknown> {
  const params = body === undefined || body === null ? {} : body;
  if (typeof params !== 'object' || Array.isArray(params)) {
    throw new AppError('SVC-EXE-003', 'Request body must be a JSON object', {
      errors: [{ path: '', message: 'must be object' }],
    });
  }
  if (!endpoint.validate(params)) {
    const errors = fieldErrors(endpoint.validate.errors);
    const first = errors[0];
    throw new AppError('SVC-EXE-003', first ? `${first.path || 'body'} ${first.message}` : undefined, {
      errors,
    });
  }
  return params as Record<string, unknown>;
}

async function debit(
  deps: AppDeps,
  rt: ExecutionRuntime,
  endpoint: ResolvedEndpoint,
  input: ExecuteInput,
  callId: string,
  now: Date,
  key: string | null,
  hash: string | null,
): Promise<bigint> {
  const price = endpoint.priceCredits;
  const input0 = {
    callId,
    accountId: input.accountId,
    apiKeyId: input.apiKeyId,
    providerId: endpoint.providerId,
    endpointSlug: endpoint.slug,
    priceCredits: price,
    now,
    deadlineAt: new Date(now.getTime() + endpoint.timeoutMs),
    idempotencyKey: key,
    requestHash: hash,
  };
  // Common case: one autocommit statement, which holds the account row lock only while PostgreSQL
  // runs it (no round trip to us in between); calls of a busy account are coalesced into one statement.
  const quick = await rt.debits.debit(input0);
  if (quick) {
    deps.events.emit('payments.counted', {
      accountId: input.accountId,
      successfulPayments: quick.successfulPayments,
    });
    return quick.balanceAfter;
  }
  for (let attempt = 1; ; attempt++) {
    // The balance may cross the alert threshold or reach zero: debit and queue the notification in
    // one transaction.
    const debited = await deps.db.orm.transaction(async (tx) => {
      const r = await debitForCall(tx, input0);
      if (r) {
        await deps.hooks.run('balance.decreased', tx, {
          accountId: input.accountId,
          balanceBefore: r.balanceAfter + price,
          balanceAfter: r.balanceAfter,
        });
      }
      return r;
    });
    if (debited) {
      deps.events.emit('payments.counted', {
        accountId: input.accountId,
        successfulPayments: debited.successfulPayments,
      });
      return debited.balanceAfter;
    }

    const refusal = await explainRefusal(
      deps.db.orm,
      input.accountId,
      price,
      now,
      input.apiKeyId,
      endpoint.providerId,
    );
    switch (refusal.kind) {
      case 'revoked_key':
        throw new AppError('SVC-AUTH-001');
      case 'expired_key':
        throw new AppError('SVC-AUTH-001', 'The API key has expired');
      case 'key_not_allowed':
        throw new AppError('SVC-AUTH-005', 'The API key is not allowed to call this provider');
      case 'key_daily':
      case 'key_total':
        // Own committing transaction: the refused call's transaction wrote nothing.
        await deps.db.orm.transaction((tx) =>
          deps.hooks.run('key-limit.reached', tx, {
            accountId: input.accountId,
            keyId: refusal.keyId,
            limitType: refusal.kind as 'key_daily' | 'key_total',
            limitCredits: refusal.limitCredits,
            spentCredits:
              refusal.kind === 'key_daily' ? refusal.spentTodayCredits : refusal.spentTotalCredits,
            day: utcDay(now),
          }),
        );
        throw keyLimitError(refusal, price);
      case 'key_per_call':
        throw keyLimitError(refusal, price);
      case 'unknown_account':
      case 'inactive':
        throw new AppError('SVC-AUTH-004');
      case 'per_call':
      case 'daily': {
        if (refusal.kind === 'daily') {
          await deps.db.orm.transaction((tx) =>
            deps.hooks.run('daily-limit.reached', tx, {
              accountId: input.accountId,
              limitCredits: refusal.limitCredits,
              spentCredits: refusal.currentDailySpend,
              day: refusal.day,
            }),
          );
        }
        throw new AppError(
          'SVC-CREDIT-002',
          refusal.kind === 'daily'
            ? 'Daily spending limit would be exceeded'
            : 'Call price exceeds the per-call spending limit',
          {
            limitType: refusal.kind,
            limitCredits: refusal.limitCredits.toString(),
            currentDailySpend: refusal.currentDailySpend.toString(),
            requestedCredits: price.toString(),
          },
        );
      }
      case 'balance':
        throw insufficient(price, refusal.available);
      case 'none':
        // Out of attempts: report the balance as it is, not zero.
        if (attempt >= DEBIT_ATTEMPTS) throw insufficient(price, refusal.available);
    }
  }
}

const KEY_LIMIT_MESSAGES = {
  key_per_call: "Call price exceeds the API key's per-call maximum",
  key_daily: "The API key's daily budget would be exceeded",
  key_total: "The API key's total budget would be exceeded",
};

function keyLimitError(refusal: Extract<Refusal, { keyId: string }>, price: bigint) {
  return new AppError('SVC-CREDIT-002', KEY_LIMIT_MESSAGES[refusal.kind], {
    limitType: refusal.kind,
    keyId: refusal.keyId,
    limitCredits: refusal.limitCredits.toString(),
    currentDailySpend: refusal.spentTodayCredits.toString(),
    currentTotalSpend: refusal.spentTotalCredits.toString(),
    requestedCredits: price.toString(),
  });
}

function insufficient(required: bigint, available: bigint) {
  return new AppError('SVC-PAY-001', undefined, {
    required_usdc: creditsToUsdc(required),
    available_usdc: creditsToUsdc(available),
  });
}

interface Failure {
  code: 'SVC-EXE-004' | 'SVC-EXE-005';
  reason: RefundReason;
  outcome: 'provider_error' | 'timeout';
  providerStatus: number | null;
}

/** Provider results that are refunded (docs/execution.md): 5xx, timeout, connection failure, unreadable answer. */
export function failureOf(result: ProviderResult): Failure | undefined {
  switch (result.kind) {
    case 'timeout':
      return { code: 'SVC-EXE-005', reason: 'timeout', outcome: 'timeout', providerStatus: null };
    case 'connection':
      return { code: 'SVC-EXE-004', reason: 'connection', outcome: 'provider_error', providerStatus: null };
    case 'oversized':
      return {
        code: 'SVC-EXE-004',
        reason: 'bad_response',
        outcome: 'provider_error',
        providerStatus: result.status,
      };
    case 'response':
      if (result.status >= 500) {
        return {
          code: 'SVC-EXE-004',
          reason: 'provider_5xx',
          outcome: 'provider_error',
          providerStatus: result.status,
        };
      }
      // We never follow redirects (calls go to the registered base URL only), and a 2xx we cannot read
      // as JSON did not deliver what was paid for.
      if (
        result.status < 200 ||
        (result.status >= 300 && result.status < 400) ||
        (result.status < 300 && !result.isJson && result.text !== '')
      ) {
        return {
          code: 'SVC-EXE-004',
          reason: 'bad_response',
          outcome: 'provider_error',
          providerStatus: result.status,
        };
      }
      return undefined;
  }
}
