// SvcError: every failure the client reports, with the service's error code (SVC-*), HTTP status,
// request id and details; after failover it also lists every attempt made.

/** One provider attempt inside `client.call()`. */
export interface CallAttempt {
  provider_id: string;
  endpoint: string;
  /** success (2xx, charged) | client_error (provider 4xx, charged) | refunded (5xx/timeout) | rejected (refused before the provider: nothing charged) */
  outcome: 'success' | 'client_error' | 'refunded' | 'rejected';
  /** HTTP status the service answered for this attempt. */
  status: number;
  /** Net credits this attempt cost (1 credit = 0.000001 USDC), as an integer string. */
  credits_charged: string;
  error_code?: string;
  request_id?: string;
}

export interface SvcErrorInit {
  code: string;
  status: number;
  message: string;
  requestId?: string | undefined;
  details?: Record<string, unknown>;
  attempts?: CallAttempt[];
  retryAfterMs?: number | undefined;
  cause?: unknown;
}

/** Codes the client itself reports (never sent by the service). */
export const CLIENT_ERROR_CODES = {
  network: 'SVC-CLIENT-NETWORK',
  noCandidates: 'SVC-CLIENT-NO-CANDIDATES',
  allFailed: 'SVC-CLIENT-ALL-FAILED',
  auth: 'SVC-CLIENT-AUTH',
} as const;

export class SvcError extends Error {
  override readonly name = 'SvcError';
  readonly code: string;
  /** HTTP status (0 when no answer arrived). */
  readonly status: number;
  readonly requestId: string | undefined;
  readonly details: Record<string, unknown>;
  /** Every provider attempt, when the error ends a `client.call()`. */
  readonly attempts: CallAttempt[];
  readonly retryAfterMs: number | undefined;

  constructor(init: SvcErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = init.code;
    this.status = init.status;
    this.requestId = init.requestId;
    this.details = init.details ?? {};
    this.attempts = init.attempts ?? [];
    this.retryAfterMs = init.retryAfterMs;
  }
}

/** Reads the service's error body: shape A `{error: {code, message, details}}` or shape B (SVC-CREDIT-*). */
export function errorFromResponse(status: number, body: unknown, headers: Headers): SvcError {
  const requestId = headers.get('x-request-id') ?? undefined;
  const retryAfterMs = parseRetryAfter(headers.get('retry-after'));
  const record = (v: unknown): Record<string, unknown> | undefined =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  const root = record(body);
  const inner = record(root?.error) ?? root;
  const code = typeof inner?.code === 'string' ? inner.code : `HTTP-${status}`;
  const message = typeof inner?.message === 'string' ? inner.message : `HTTP ${status}`;
  return new SvcError({
    code,
    status,
    message,
    requestId,
    details: record(inner?.details) ?? {},
    retryAfterMs,
  });
}

/** Retry-After in seconds or as an HTTP date → milliseconds (undefined when absent or unreadable). */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
