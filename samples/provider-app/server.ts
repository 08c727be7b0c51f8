// The bundled sample provider application: a plain node:http server hosting every sample provider under
// `/<provider_id>/<slug>`. Each request must carry a valid X-Svc-Provider-Signature made with that
// provider's secret (src/modules/catalog/signature.ts), otherwise 401.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  verifyProviderSignature,
} from '../../src/modules/catalog/signature.js';
import { checkInput, inputFromJson, inputFromQuery } from './input.js';
import { SAMPLE_PROVIDERS } from './providers.js';
import { SampleInputError, type SampleProvider } from './types.js';

const MAX_BODY_BYTES = 1024 * 1024;
/** Methods whose parameters travel in the query string (and are what the signature covers). */
const QUERY_METHODS = new Set(['GET', 'HEAD']);

export interface SampleAppOptions {
  host?: string;
  /** 0 (default) = an ephemeral port. */
  port?: number;
  /** The secret of a provider, once registered; requests for a provider without one get 401. */
  secretOf(providerId: string): string | undefined;
  providers?: SampleProvider[];
  /** Unix seconds, for the signature's freshness check (tests). */
  nowSeconds?: () => number;
}

export interface SampleApp {
  /** http://host:port, without a trailing slash. */
  url: string;
  /** base_url to register for a provider. */
  baseUrlOf(providerId: string): string;
  close(): Promise<void>;
}

class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function send(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new HttpProblem(413, 'payload_too_large', 'body exceeds 1 MiB');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function findProvider(providers: SampleProvider[], providerId: string): SampleProvider {
  const provider = providers.find((p) => p.definition.provider_id === providerId);
  if (!provider) throw new HttpProblem(404, 'not_found', `no provider ${providerId}`);
  return provider;
}

function findEndpoint(provider: SampleProvider, slug: string, rest: string[], method: string) {
  const endpoint = provider.endpoints.find((e) => e.definition.slug === slug);
  if (!endpoint || rest.length) throw new HttpProblem(404, 'not_found', `no endpoint ${slug}`);
  if (endpoint.definition.method !== method) {
    throw new HttpProblem(405, 'method_not_allowed', `use ${endpoint.definition.method}`);
  }
  return endpoint;
}

async function handle(req: IncomingMessage, opts: SampleAppOptions, providers: SampleProvider[]) {
  const method = req.method ?? 'GET';
  const rawUrl = req.url ?? '/';
  const queryAt = rawUrl.indexOf('?');
  const pathname = queryAt === -1 ? rawUrl : rawUrl.slice(0, queryAt);
  const rawQuery = queryAt === -1 ? '' : rawUrl.slice(queryAt + 1);
  const [, providerId = '', slug = '', ...rest] = pathname.split('/');
  const provider = findProvider(providers, providerId);
  const body = await readBody(req);

  // Authenticate before anything else about the request is looked at.
  const secret = opts.secretOf(providerId);
  const header = (name: string) => {
    const v = req.headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const payload = QUERY_METHODS.has(method) ? rawQuery : body;
  const signed = header(SIGNATURE_HEADER);
  const timestamp = header(TIMESTAMP_HEADER);
  if (!secret || !verifyProviderSignature(secret, signed, timestamp, payload, opts.nowSeconds?.())) {
    throw new HttpProblem(401, 'invalid_signature', 'missing, stale or invalid X-Svc-Provider-Signature');
  }

  const endpoint = findEndpoint(provider, slug, rest, method);
  const { parameters } = endpoint.definition;
  const input = QUERY_METHODS.has(method)
    ? inputFromQuery(new URLSearchParams(rawQuery), parameters)
    : inputFromJson(body);
  return endpoint.handle(checkInput(input, parameters));
}

export async function startSampleProviderApp(opts: SampleAppOptions): Promise<SampleApp> {
  const providers = opts.providers ?? SAMPLE_PROVIDERS;
  const server = createServer((req, res) => {
    handle(req, opts, providers).then(
      (result) => send(res, 200, result),
      (err: unknown) => {
        if (err instanceof HttpProblem)
          send(res, err.status, { error: { code: err.code, message: err.message } });
        else if (err instanceof SampleInputError) {
          send(res, 400, { error: { code: 'invalid_input', message: err.message } });
        } else send(res, 500, { error: { code: 'internal', message: 'internal error' } });
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  return {
    url,
    baseUrlOf: (providerId) => `${url}/${providerId}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
