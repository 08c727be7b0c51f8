// One HTTP request with retries: exponential backoff with full jitter, Retry-After honoured on 429/503,
// and the rule that a charged request is never sent twice without its Idempotency-Key.
import { CLIENT_ERROR_CODES, errorFromResponse, SvcError } from './errors.js';

export interface RetryPolicy {
  /** Retries after the first try (default 3). */
  retries: number;
  /** First backoff step in ms (default 200); step n waits a random time in [0, base·2^n]. */
  baseDelayMs: number;
  /** Ceiling of one backoff step in ms (default 5000). */
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the error is returned at once (default 30 000). */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  retries: 3,
  baseDelayMs: 200,
  maxDelayMs: 5_000,
  maxRetryAfterMs: 30_000,
};

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined> | undefined;
  body?: unknown;
  headers?: Record<string, string> | undefined;
  /** The request may move money (execute): retried only when it carries an Idempotency-Key. */
  charged?: boolean;
  /** Sent without credentials (wallet challenge, e-mail login). */
  anonymous?: boolean;
  /** Read the answer as text (CSV) instead of JSON. */
  text?: boolean;
  /** Statuses returned as answers instead of thrown (execute passes provider 4xx through). */
  acceptStatus?: (status: number) => boolean;
}

export interface HttpResponse<T> {
  status: number;
  body: T;
  headers: Headers;
}

export interface TransportOptions {
  baseUrl: string;
  fetch?: typeof fetch;
  retry?: Partial<RetryPolicy>;
  /** Per-request timeout in ms (default 60 000). */
  timeoutMs?: number;
  /** Credential headers for each try (may refresh a wallet signature). */
  authHeaders: () => Promise<Record<string, string>>;
}

const RETRIABLE_STATUS = new Set([429, 503]);

export class Transport {
  readonly baseUrl: string;
  readonly retry: RetryPolicy;
  private readonly fetchImpl: typeof fetch;
  private readonly timeoutMs: number;
  private readonly authHeaders: () => Promise<Record<string, string>>;

  constructor(opts: TransportOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.retry = { ...DEFAULT_RETRY, ...opts.retry };
    this.fetchImpl = opts.fetch ?? globalThis.fetch.bind(globalThis);
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.authHeaders = opts.authHeaders;
  }

  url(path: string, query?: HttpRequest['query']): string {
    const url = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    return url.toString();
  }

  async request<T>(req: HttpRequest): Promise<HttpResponse<T>> {
    const hasKey = Object.keys(req.headers ?? {}).some((h) => h.toLowerCase() === 'idempotency-key');
    // A charged request without a key may have been executed when no answer came back: never resend it.
    const mayResendUnanswered = !req.charged || hasKey;
    for (let attempt = 0; ; attempt++) {
      const canRetry = attempt < this.retry.retries;
      let response: Response;
      try {
        response = await this.send(req);
      } catch (err) {
        const error = new SvcError({
          code: CLIENT_ERROR_CODES.network,
          status: 0,
          message: `no answer from ${req.method} ${req.path}: ${err instanceof Error ? err.message : String(err)}`,
          cause: err,
        });
        if (canRetry && mayResendUnanswered) {
          await sleep(this.backoff(attempt));
          continue;
        }
        throw error;
      }
      const body = await readBody(response, req.text === true && response.ok);
      if (response.ok || req.acceptStatus?.(response.status)) {
        return { status: response.status, body: body as T, headers: response.headers };
      }
      const error = errorFromResponse(response.status, body, response.headers);
      // 429 and 503 are answered before anything is written (packages/client/README.md), so even a charged call may retry.
      if (canRetry && RETRIABLE_STATUS.has(response.status)) {
        const wait = error.retryAfterMs ?? this.backoff(attempt);
        if (wait <= this.retry.maxRetryAfterMs) {
          await sleep(wait);
          continue;
        }
      }
      throw error;
    }
  }

  private async send(req: HttpRequest): Promise<Response> {
    const headers: Record<string, string> = { accept: req.text ? 'text/csv' : 'application/json' };
    Object.assign(headers, req.anonymous ? {} : await this.authHeaders(), req.headers);
    let body: string | undefined;
    if (req.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(req.body);
    }
    return this.fetchImpl(this.url(req.path, req.query), {
      method: req.method,
      headers,
      ...(body === undefined ? {} : { body }),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
  }

  /** Full jitter: a random wait in [0, min(max, base·2^attempt)]. */
  backoff(attempt: number): number {
    const ceiling = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** attempt);
    return Math.round(Math.random() * ceiling);
  }
}

async function readBody(response: Response, asText: boolean): Promise<unknown> {
  const text = await response.text();
  if (asText) return text;
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
