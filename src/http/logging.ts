// Logger options for the service: one redaction list by field name, and serializers that never write
// query parameters — neither a failed SQL statement's bound values (Drizzle puts them in the error's
// message and stack: key hashes, e-mail addresses) nor a URL's query string.
// One access-log line per request; in devnet on a terminal, lines are printed readably (prettyLogStream).
import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { type DestinationStream, type Logger, pino } from 'pino';

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
 * Standard output for the service's JSON log, written in blocks of about 4 KB (or every 200 ms, whichever
 * comes first) instead of one write per line: at a thousand requests a second the write per access line,
 * and the wake-up of the log reader at the other end of the pipe, cost more than building the line
 * (docs/performance.md). Buffered lines are written out on exit, crash included (pino flushes on
 * 'exit'); only a SIGKILL loses them, at most the last 200 ms.
 */
export function bufferedStdout(): DestinationStream {
  return pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 200 });
}

/**
 * The one access-log line per request, in place of Fastify's two: method, route pattern (never the URL: it
 * may carry search terms or a key in its query string), status, duration, request id and the account, if
 * any. Written from Fastify's own end-of-response call, so it costs no hook; an object and a constant
 * message, so above `info` nothing is built but the level check. Fastify's other per-request lines (route
 * not found, default error log) stay off: our error handler logs errors itself.
 *
 * The line goes through a second pino logger on the app logger's own stream, without the redaction
 * list: every field above is ours and none is a secret, and pino applies a wildcard redaction list to
 * every field of every line (a tenth of a paid call's CPU, profiled). Anything else, an error included,
 * goes through the app logger and is redacted as before.
 */
export class AccessLogController extends LogController {
  /** Built on first use from the stream of the app's logger (one controller per app). */
  private lines: Logger | undefined;

  constructor() {
    super({ disableRequestLogging: true });
  }

  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const log = request.log;
    // (Fastify's silent logger, logger: false, has no isLevelEnabled: its methods are no-ops anyway.)
    const info = (log as Partial<Pick<Logger, 'isLevelEnabled'>>).isLevelEnabled?.('info') ?? true;
    if (!info && !error) return;
    const caller = request.caller;
    const line = {
      method: request.method,
      route: request.routeOptions.url ?? '-',
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 100) / 100,
      account: caller.kind === 'account' ? caller.accountId : undefined,
    };
    // An error here is one of the response stream itself (client gone mid-answer), not of the handler.
    if (error) {
      log.warn({ ...line, err: error }, 'request');
      return;
    }
    const lines = this.lineLogger(log);
    if (lines) lines.info({ reqId: request.id, ...line }, 'request');
    else log.info(line, 'request');
  }

  private lineLogger(log: FastifyRequest['log']): Logger | undefined {
    if (this.lines) return this.lines;
    const stream = (log as unknown as Record<symbol, DestinationStream | undefined>)[pino.symbols.streamSym];
    if (!stream) return undefined;
    // The app logger decides the level (checked above); this one writes whatever it is given.
    this.lines = pino({ level: 'trace' }, stream);
    return this.lines;
  }
}
