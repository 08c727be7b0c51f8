// Forwards one call to its provider with undici (pooled keep-alive connections), signed, within the
// endpoint's timeout, reading at most MAX_PROVIDER_BODY_BYTES of the answer. Never throws: every failure
// becomes a ProviderResult the settlement step maps to an outcome.
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import { Agent, buildConnector } from 'undici';
import { type EgressPolicy, EgressRefused, guardedLookup, isPrivateAddress } from '../../lib/egress.js';
import { CALL_ID_HEADER, SIGNATURE_HEADER, signProviderRequest, TIMESTAMP_HEADER } from '../catalog/index.js';
import type { ResolvedEndpoint } from './resolve.js';

/** Provider answers above this size are cut off and treated as a provider failure (refunded). */
export const MAX_PROVIDER_BODY_BYTES = 1024 * 1024;

export type ProviderResult =
  /** `json` undefined when the body was not JSON (or empty: then `text` is ''). */
  | { kind: 'response'; status: number; json: unknown; isJson: boolean; text: string; latencyMs: number }
  | { kind: 'oversized'; status: number; latencyMs: number }
  | { kind: 'timeout'; latencyMs: number }
  | { kind: 'connection'; error: string; latencyMs: number };

/**
 * The agent for provider calls. Unless private addresses are allowed, every connection is checked on the
 * address it dials (src/lib/egress.ts): literal addresses here, names by the socket's lookup.
 */
export function createProviderAgent(policy: EgressPolicy = { allowPrivate: true }): Agent {
  const pool = { keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000, connections: 512 };
  if (policy.allowPrivate) return new Agent(pool);
  const dial = buildConnector({ lookup: guardedLookup } as buildConnector.BuildOptions);
  return new Agent({
    ...pool,
    connect: (options, callback) => {
      if (isPrivateAddress(options.hostname)) {
        callback(new EgressRefused(options.hostname, options.hostname), null);
        return;
      }
      dial(options, callback);
    },
  });
}

/** Query string for GET calls: scalars as they are, objects/arrays as JSON. */
export function toQueryString(params: Record<string, unknown>): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) continue;
    qs.append(k, v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v));
  }
  return qs.toString();
}

/**
 * The whole body, or 'oversized' (and the stream destroyed) once it passes `max` bytes. Plain 'data'
 * events rather than `for await`: the async iterator costs a few promises per chunk on every paid call.
 */
function readCapped(body: Readable, max: number): Promise<Buffer | 'oversized'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    body.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        body.destroy();
        resolve('oversized');
        return;
      }
      chunks.push(chunk);
    });
    body.once('end', () =>
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size)),
    );
    body.once('error', reject);
  });
}

/** The abort signal undici accepts besides AbortSignal: an emitter of 'abort' with an `aborted` flag. */
class AbortEmitter extends EventEmitter {
  aborted = false;

  abort() {
    this.aborted = true;
    this.emit('abort');
  }
}

export interface ForwardInput {
  endpoint: ResolvedEndpoint;
  callId: string;
  params: Record<string, unknown>;
  nowSeconds: number;
}

export async function forwardToProvider(agent: Agent, f: ForwardInput): Promise<ProviderResult> {
  const { endpoint } = f;
  const bodyless = endpoint.method === 'GET' || endpoint.method === 'HEAD';
  const payload = bodyless ? toQueryString(f.params) : JSON.stringify(f.params);
  // Only our own headers: never the caller's credentials or any other X-Svc-* header.
  const headers: Record<string, string> = {
    [CALL_ID_HEADER]: f.callId,
    [TIMESTAMP_HEADER]: String(f.nowSeconds),
    [SIGNATURE_HEADER]: signProviderRequest(endpoint.secret, f.nowSeconds, payload),
    accept: 'application/json',
  };
  if (!bodyless) headers['content-type'] = 'application/json';
  const path = bodyless && payload ? `${endpoint.path}?${payload}` : endpoint.path;

  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  // undici takes an EventEmitter as its abort signal: much cheaper per call than an AbortController.
  const abort = new AbortEmitter();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, endpoint.timeoutMs);
  try {
    const res = await agent.request({
      origin: endpoint.origin,
      path,
      method: endpoint.method as 'GET',
      headers,
      ...(bodyless ? {} : { body: payload }),
      signal: abort,
      headersTimeout: endpoint.timeoutMs,
      bodyTimeout: endpoint.timeoutMs,
    });
    const raw = await readCapped(res.body, MAX_PROVIDER_BODY_BYTES);
    if (raw === 'oversized') return { kind: 'oversized', status: res.statusCode, latencyMs: elapsed() };
    const text = raw.toString('utf8');
    let json: unknown;
    let isJson = false;
    if (text.trim() !== '') {
      try {
        json = JSON.parse(text);
        isJson = true;
      } catch {
        isJson = false;
      }
    }
    return { kind: 'response', status: res.statusCode, json, isJson, text, latencyMs: elapsed() };
  } catch (err) {
    if (timedOut) return { kind: 'timeout', latencyMs: elapsed() };
    const code = (err as { code?: unknown }).code;
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
      return { kind: 'timeout', latencyMs: elapsed() };
    }
    return {
      kind: 'connection',
      error: typeof code === 'string' ? code : 'request failed',
      latencyMs: elapsed(),
    };
  } finally {
    clearTimeout(timer);
  }
}
