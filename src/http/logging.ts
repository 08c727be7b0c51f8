// Logger options for the service: one redaction list by field name, and serializers that never write
// query parameters — neither a failed SQL statement's bound values (Drizzle puts them in the error's
// message and stack: key hashes, e-mail addresses) nor a URL's query string.
// One access-log line per request; in devnet on a terminal, lines are printed readably (prettyLogStream).
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';

/** Field names whose values are secrets wherever they appear (top level or nested up to 3 deep). */
export const SECRET_FIELDS = [
  'key_hash',
  'keyHash',
  'secret',
  'token',
  'signature',
  'authorization',
  'password',
  'api_key',
  'apiKey',
  'admin_token',
  'adminToken',
  'session_token',
  'code_hash',
  'secret_encrypted',
  'cookie',
];

const HEADER_SECRETS = ['x-svc-api-key', 'x-svc-signature', 'x-svc-nonce', 'stripe-signature', 'x-payment'];

export const REDACT_PATHS = [
  ...SECRET_FIELDS.flatMap((f) => [f, `*.${f}`, `*.*.${f}`, `*.*.*.${f}`]),
  ...HEADER_SECRETS.map((h) => `req.headers["${h}"]`),
];

interface LoggedError {
  [key: string]: unknown;
  type: string;
  message: string;
  stack: string;
}

/** An error as logged: a failed query keeps its SQL text (placeholders only), never its parameters. */
export function serializeError(err: unknown, depth = 0): LoggedError {
  if (!(err instanceof Error)) return { type: typeof err, message: String(err), stack: '' };
  const e = err as Error & { query?: unknown; params?: unknown; code?: unknown; cause?: unknown };
  const isQueryError = typeof e.query === 'string' && 'params' in e;
  const message = isQueryError ? `Failed query: ${e.query}` : e.message;
  // The stack's first lines repeat the message (with the parameters): keep only the frames.
  const frames = (e.stack ?? '')
    .split('\n')
    .filter((line) => line.startsWith('    at '))
    .join('\n');
  return {
    type: e.constructor?.name ?? 'Error',
    message,
    stack: `${e.name}: ${message}${frames ? `\n${frames}` : ''}`,
    ...(e.code === undefined ? {} : { code: e.code }),
    ...(e.cause !== undefined && depth < 4 ? { cause: serializeError(e.cause, depth + 1) } : {}),
  };
}

export const logSerializers = {
  err: (err: unknown) => serializeError(err),
  req: (req: { method?: string; url?: string; host?: string; ip?: string }) => ({
    method: req.method,
    // Path only: query strings carry search terms, e-mail addresses and, sometimes, tokens.
    url: (req.url ?? '').split('?')[0],
    host: req.host,
    remoteAddress: req.ip,
  }),
};

/**
 * The one access-log line per request (Fastify's own two lines are disabled in buildApp): method, route
 * pattern (never the URL: it may carry search terms or a key in its query string), status, duration,
 * request id (the child logger's `reqId`) and the account, if any. An object and a constant message, so
 * when the level is above `info` nothing is built but the check.
 */
export function registerAccessLog(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    const log = request.log;
    // (Fastify's silent logger, logger: false, has no isLevelEnabled: its info is a no-op anyway.)
    if ((log as Partial<Pick<Logger, 'isLevelEnabled'>>).isLevelEnabled?.('info') ?? true) {
      const caller = request.caller;
      log.info(
        {
          method: request.method,
          route: request.routeOptions.url ?? '-',
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime * 100) / 100,
          account: caller.kind === 'account' ? caller.accountId : undefined,
        },
        'request',
      );
    }
    done();
  });
}
