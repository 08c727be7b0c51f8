// The one way the dashboard reaches the service: the public HTTP API with the session's headers.
import { clearSession, credentialHeaders, loadSession } from './session.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | null,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** Fired when the API refuses the stored session (expired or revoked): the app shows sign-in again. */
export const SESSION_EXPIRED = 'svc:session-expired';

export async function request(
  method: string,
  path: string,
  body?: unknown,
  extraHeaders?: Record<string, string>,
) {
  const session = loadSession();
  const headers: Record<string, string> = { ...credentialHeaders(session), ...extraHeaders };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(
      0,
      'NETWORK',
      'The service could not be reached. Check your connection and retry.',
      null,
    );
  }
  if (res.ok) return res;
  const requestId = res.headers.get('x-request-id');
  let code = `HTTP-${res.status}`;
  let message = res.statusText || 'Request failed';
  let details: Record<string, unknown> = {};
  try {
    const payload = (await res.json()) as {
      error?: { code?: string; message?: string; details?: Record<string, unknown> };
    };
    code = payload.error?.code ?? code;
    message = payload.error?.message ?? message;
    details = payload.error?.details ?? details;
  } catch {
    // Not JSON: keep the status line.
  }
  if (res.status === 401 && session) {
    clearSession();
    window.dispatchEvent(new CustomEvent(SESSION_EXPIRED));
  }
  throw new ApiError(res.status, code, message, requestId, details);
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await request(method, path, body);
  return (await res.json()) as T;
}

/** Routes that answer `{data, meta}`. */
export async function apiData<T>(method: string, path: string, body?: unknown): Promise<T> {
  return (await api<{ data: T }>(method, path, body)).data;
}

/** Whether a route exists on this server (the deposit and devnet routes may not). */
export function isNotFound(err: unknown): boolean {
  return err instanceof ApiError && err.status === 404;
}
