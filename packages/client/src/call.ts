// client.call(): discover candidates, run the best, and when the service refunds the attempt (provider
// 5xx or timeout) run the next candidate that fits the same constraints, so the caller pays for one
// success at most (packages/client/README.md). Each attempt has its own Idempotency-Key, `<call id>-<n>`: the
// transport reuses it when it resends that attempt after a network error, and the next provider gets n+1.
import type { ExecuteResult, SvcClient } from './client.js';
import { type CallAttempt, CLIENT_ERROR_CODES, SvcError } from './errors.js';
import { usdcToCredits } from './money.js';

/** One endpoint `call()` may run. */
export interface CallCandidate {
  provider_id: string;
  endpoint: string;
  price_per_call_usdc: string | undefined;
  uptime_pct: number | undefined;
}

export interface CallOptions {
  /** Natural-language description: candidates come from POST /v1/discover. */
  query?: string;
  /** A named endpoint (with `endpoint`): tried first; with `query` as well, discovered ones follow. */
  provider_id?: string;
  endpoint?: string;
  /** The endpoint parameters, or a function of the candidate (parameter names differ per provider). */
  params?: Record<string, unknown> | ((candidate: CallCandidate) => Record<string, unknown>);
  /** Inclusive USDC ceiling per call, e.g. "0.01": candidates above it are skipped, and it is sent. */
  max_price_per_call?: string;
  /** Inclusive minimum uptime of a candidate, in percent. */
  min_uptime_pct?: number;
  /** Most providers to try (default 3). */
  attempts?: number;
  /** Discovery filter by category. */
  category?: string;
  /** The logical call id the attempt keys derive from (default: a random UUID). */
  call_id?: string;
}

export interface CallResult {
  data: unknown;
  svc: ExecuteResult['svc'];
  provider_id: string;
  endpoint: string;
  attempts: CallAttempt[];
}

/** Refused before the provider ran, nothing charged, and another endpoint may accept it. */
const NEXT_CANDIDATE_CODES = new Set(['SVC-EXE-001', 'SVC-EXE-002', 'SVC-EXE-003', 'SVC-EXE-006']);
/** Refunded by the service: the provider failed. */
const REFUNDED_CODES = new Set(['SVC-EXE-004', 'SVC-EXE-005']);

export async function callWithFailover(client: SvcClient, opts: CallOptions): Promise<CallResult> {
  const maxAttempts = opts.attempts ?? 3;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new RangeError('attempts must be ≥ 1');
  if (!opts.query && !(opts.provider_id && opts.endpoint)) {
    throw new TypeError('call() needs a query, or provider_id and endpoint');
  }
  const maxCredits =
    opts.max_price_per_call === undefined ? undefined : usdcToCredits(opts.max_price_per_call);
  const candidates = (await findCandidates(client, opts)).filter(
    (c) =>
      (maxCredits === undefined ||
        c.price_per_call_usdc === undefined ||
        usdcToCredits(c.price_per_call_usdc) <= maxCredits) &&
      (opts.min_uptime_pct === undefined ||
        c.uptime_pct === undefined ||
        c.uptime_pct >= opts.min_uptime_pct),
  );
  if (candidates.length === 0) {
    throw new SvcError({
      code: CLIENT_ERROR_CODES.noCandidates,
      status: 0,
      message: 'no endpoint fits the query and constraints',
    });
  }

  const callId = opts.call_id ?? globalThis.crypto.randomUUID();
  const attempts: CallAttempt[] = [];
  for (const candidate of candidates.slice(0, maxAttempts)) {
    const params = typeof opts.params === 'function' ? opts.params(candidate) : (opts.params ?? {});
    // The price the caller accepted: its own ceiling, else the price it saw at discovery.
    const maxPriceUsdc = opts.max_price_per_call ?? candidate.price_per_call_usdc;
    try {
      const result = await client.execute(candidate.provider_id, candidate.endpoint, params, {
        idempotencyKey: `${callId}-${attempts.length + 1}`,
        ...(maxPriceUsdc ? { maxPriceUsdc } : {}),
      });
      const success = result.status < 300;
      attempts.push({
        provider_id: candidate.provider_id,
        endpoint: candidate.endpoint,
        outcome: success ? 'success' : 'client_error',
        status: result.status,
        credits_charged: usdcToCredits(result.svc.charged_usdc).toString(),
        ...(result.requestId ? { request_id: result.requestId } : {}),
      });
      if (!success) {
        // The provider answered (and was paid): the caller's parameters are the problem, not the provider.
        throw new SvcError({
          code: 'SVC-PROVIDER-4XX',
          status: result.status,
          message: `${candidate.provider_id}/${candidate.endpoint} answered ${result.status} (charged)`,
          requestId: result.requestId,
          details: { data: result.data, svc: result.svc },
          attempts,
        });
      }
      return {
        data: result.data,
        svc: result.svc,
        provider_id: candidate.provider_id,
        endpoint: candidate.endpoint,
        attempts,
      };
    } catch (err) {
      if (!(err instanceof SvcError) || err.attempts.length > 0) throw err;
      const refunded = REFUNDED_CODES.has(err.code);
      if (!refunded && !NEXT_CANDIDATE_CODES.has(err.code)) {
        // Account-level refusals (balance, limits, auth) and unanswered requests end the call: another
        // provider would meet the same refusal, and an unanswered attempt may have been charged.
        throw withAttempts(err, attempts);
      }
      attempts.push({
        provider_id: candidate.provider_id,
        endpoint: candidate.endpoint,
        outcome: refunded ? 'refunded' : 'rejected',
        status: err.status,
        credits_charged: '0',
        error_code: err.code,
        ...(err.requestId ? { request_id: err.requestId } : {}),
      });
    }
  }
  const summary = attempts
    .map((a) => `${a.provider_id}/${a.endpoint}: ${a.error_code} (${a.status})`)
    .join('; ');
  throw new SvcError({
    code: CLIENT_ERROR_CODES.allFailed,
    status: attempts[attempts.length - 1]?.status ?? 0,
    message: `all ${attempts.length} attempts failed, nothing charged: ${summary}`,
    attempts,
  });
}

function withAttempts(err: SvcError, attempts: CallAttempt[]): SvcError {
  return new SvcError({
    code: err.code,
    status: err.status,
    message: err.message,
    requestId: err.requestId,
    details: err.details,
    attempts,
    retryAfterMs: err.retryAfterMs,
    cause: err,
  });
}

async function findCandidates(client: SvcClient, opts: CallOptions): Promise<CallCandidate[]> {
  const found: CallCandidate[] = [];
  if (opts.provider_id && opts.endpoint) {
    const { data } = await client.getEndpoint(opts.provider_id, opts.endpoint);
    const endpoint = data as {
      pricing?: { price_per_call_usdc?: string };
      quality?: { uptime_pct?: number };
    };
    found.push({
      provider_id: opts.provider_id,
      endpoint: opts.endpoint,
      price_per_call_usdc: endpoint.pricing?.price_per_call_usdc,
      uptime_pct: endpoint.quality?.uptime_pct,
    });
  }
  if (opts.query) {
    const filters: Record<string, unknown> = {};
    if (opts.category) filters.category = opts.category;
    if (opts.max_price_per_call !== undefined) filters.max_price_per_call = Number(opts.max_price_per_call);
    if (opts.min_uptime_pct !== undefined) filters.min_uptime_pct = opts.min_uptime_pct;
    const { results } = await client.discover({ query: opts.query, filters, limit: 20 });
    for (const r of results) {
      if (found.some((c) => c.provider_id === r.provider_id && c.endpoint === r.endpoint_slug)) continue;
      found.push({
        provider_id: r.provider_id,
        endpoint: r.endpoint_slug,
        price_per_call_usdc: r.pricing.price_per_call_usdc,
        uptime_pct: r.quality.uptime_pct,
      });
    }
  }
  return found;
}
