// The one error handler: maps AppError, Fastify's own errors and anything unexpected onto the catalogue.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/index.js';
import { AppError, type ErrorCode, errorBody } from './catalogue.js';
import { type FieldError, fieldErrors, firstFieldError, type SchemaIssue } from './field-errors.js';

/** Seconds a client is asked to wait when a backing service is down (long enough for a restart). */
export const RETRY_AFTER_SECONDS = 5;

/** A provider's failure, refunded and answered 502/504: a warning about them, not an error of ours. */
const PROVIDER_FAULTS: ReadonlySet<ErrorCode> = new Set(['SVC-EXE-004', 'SVC-EXE-005']);

function innermostMessage(err: unknown): string {
  let e = err as { message?: unknown; cause?: unknown };
  for (let i = 0; i < 5 && e.cause && typeof e.cause === 'object'; i++) e = e.cause as typeof e;
  // First line only: a failed query's message goes on with its parameters.
  return String(e.message ?? '').split('\n')[0] ?? '';
}

/** viem's transport failures: the chain RPC did not answer (as opposed to answering with an error). */
function isChainRpcUnavailable(err: unknown): boolean {
  let e = err as { name?: unknown; cause?: unknown } | undefined;
  for (let i = 0; i < 5 && e && typeof e === 'object'; i++) {
    if (e.name === 'HttpRequestError' || e.name === 'WebSocketRequestError' || e.name === 'TimeoutError') {
      return true;
    }
    e = e.cause as typeof e;
  }
  return false;
}

export function unavailableError(): AppError {
  return new AppError('SVC-SYS-002', undefined, {}, { 'Retry-After': String(RETRY_AFTER_SECONDS) });
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Catalogue code used when this route's schema validation fails (default SVC-VAL-001). */
    validationErrorCode?: ErrorCode;
  }
}

/** Field errors of a request part; outside the body the part leads the path ("querystring.limit"). */
function validationErrors(items: SchemaIssue[], context: string | undefined): FieldError[] {
  const errors = fieldErrors(items);
  if (!context || context === 'body') return errors;
  return errors.map(({ path, message }) => ({ path: `${context}${path ? `.${path}` : ''}`, message }));
}

function fromFastifyError(err: FastifyError, request: FastifyRequest): AppError | undefined {
  if (err.validation) {
    const code = request.routeOptions.config?.validationErrorCode ?? 'SVC-VAL-001';
    const errors = validationErrors(err.validation as SchemaIssue[], err.validationContext);
    return new AppError(code, firstFieldError(errors) ?? 'Invalid request', { errors });
  }
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('SVC-VAL-002');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
        ? new AppError('SVC-VAL-003')
        : new AppError('SVC-VAL-001', 'Invalid Content-Length');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('SVC-VAL-001', 'Malformed JSON body', {
        errors: [
          {
            path: '',
            message: err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ? 'body is empty' : 'is not valid JSON',
          },
        ],
      });
    default:
      break;
  }
  // Body parser failures surface as SyntaxError with statusCode 400.
  if (err instanceof SyntaxError || (err.statusCode === 400 && /JSON/i.test(err.message))) {
    return new AppError('SVC-VAL-001', 'Malformed JSON body', {
      errors: [{ path: '', message: 'is not valid JSON' }],
    });
  }
  return undefined;
}

export function sendError(reply: FastifyReply, err: AppError) {
  for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  return reply.status(err.status).send(errorBody(err.code, err.message, err.details));
}

export function registerErrorHandling(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const appError = error instanceof AppError ? error : fromFastifyError(error, request);
    if (appError) {
      if (PROVIDER_FAULTS.has(appError.code)) {
        const { call_id, provider_id, reason, provider_status, refund } = appError.details;
        request.log.warn(
          { code: appError.code, call_id, provider_id, reason, provider_status, refund },
          'provider fault',
        );
      } else if (appError.status >= 500) {
        request.log.error({ err: error }, 'request failed');
      }
      return sendError(reply, appError);
    }
    if (isDatabaseUnavailable(error) || isChainRpcUnavailable(error)) {
      // An outage, not a bug: one line without a stack per request, and clients told to back off.
      request.log.warn({ reason: innermostMessage(error) }, 'backing service unavailable');
      return sendError(reply, unavailableError());
    }
    // Unknown failure: log it with the request id, never leak it.
    request.log.error({ err: error }, 'unhandled error');
    return sendError(
      reply,
      new AppError('SVC-SYS-001', `Internal error; quote request id ${request.id}`, {
        request_id: request.id,
      }),
    );
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    // A known path with another method: 405 with the methods it does answer to.
    const allowed = app.hasDecorator('routeIndex') ? app.routeIndex.allowed(path) : [];
    if (allowed.length > 0) {
      return sendError(
        reply,
        new AppError(
          'SVC-VAL-008',
          `${request.method} is not allowed on ${path}`,
          { allow: allowed },
          {
            Allow: allowed.join(', '),
          },
        ),
      );
    }
    return sendError(reply, new AppError('SVC-VAL-006', `No route ${request.method} ${path}`));
  });
}
