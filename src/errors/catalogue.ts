// The one error catalogue: code -> HTTP status, body shape, title and default message (docs/architecture.md).
// A test checks that every code here is thrown somewhere and every thrown code is here.

export interface ErrorSpec {
  status: number;
  /** A = { error: { code, message, details } }; B = { statusCode, code, error, message, details } */
  shape: 'A' | 'B';
  title: string;
  message: string;
}

export const ERRORS = {
  'SVC-DSC-001': { status: 400, shape: 'A', title: 'Bad Request', message: 'Provide a query or filters' },
  'SVC-DSC-002': {
    status: 400,
    shape: 'A',
    title: 'Bad Request',
    message: 'Unknown category or invalid filter value',
  },
  'SVC-RATE-001': { status: 429, shape: 'A', title: 'Too Many Requests', message: 'Rate limit exceeded' },
  'SVC-EXE-001': { status: 404, shape: 'A', title: 'Not Found', message: 'Provider not found' },
  'SVC-EXE-002': { status: 404, shape: 'A', title: 'Not Found', message: 'Endpoint not found' },
  'SVC-EXE-003': {
    status: 400,
    shape: 'A',
    title: 'Bad Request',
    message: 'Request body does not match the endpoint schema',
  },
  'SVC-EXE-004': {
    status: 502,
    shape: 'A',
    title: 'Bad Gateway',
    message: 'Provider failed; the call was refunded',
  },
  'SVC-EXE-005': {
    status: 504,
    shape: 'A',
    title: 'Gateway Timeout',
    message: 'Provider timed out; the call was refunded',
  },
  'SVC-EXE-006': {
    status: 409,
    shape: 'A',
    title: 'Conflict',
    message: 'The endpoint costs more than X-Svc-Max-Price-Usdc; nothing was charged',
  },
  'SVC-PAY-001': { status: 402, shape: 'A', title: 'Payment Required', message: 'Insufficient balance' },
  'SVC-PAY-002': { status: 400, shape: 'A', title: 'Bad Request', message: 'Transaction not found on-chain' },
  'SVC-PAY-003': { status: 409, shape: 'A', title: 'Conflict', message: 'Transaction already processed' },
  'SVC-PAY-004': {
    status: 400,
    shape: 'A',
    title: 'Bad Request',
    message: 'Below the minimum deposit of 5 USDC',
  },
  'SVC-PAY-005': {
    status: 400,
    shape: 'A',
    title: 'Bad Request',
    message: 'Not a USDC transfer to the platform wallet from a wallet of this account',
  },
  'SVC-PAY-006': {
    status: 409,
    shape: 'A',
    title: 'Conflict',
    message: 'Transaction not yet confirmed; retry later',
  },
  'SVC-PAYOUT-001': { status: 404, shape: 'A', title: 'Not Found', message: 'Settlement not found' },
  'SVC-PAYOUT-002': {
    status: 409,
    shape: 'A',
    title: 'Conflict',
    message: 'Only a failed settlement can be retried',
  },
  'SVC-AUTH-001': {
    status: 401,
    shape: 'A',
    title: 'Unauthorized',
    message: 'Missing or invalid authentication',
  },
  'SVC-AUTH-002': { status: 404, shape: 'A', title: 'Not Found', message: 'API key not found' },
  'SVC-AUTH-003': {
    status: 400,
    shape: 'A',
    title: 'Bad Request',
    message: 'Cannot revoke the API key used for this request',
  },
  'SVC-AUTH-004': { status: 403, shape: 'A', title: 'Forbidden', message: 'Account suspended' },
  'SVC-AUTH-005': {
    status: 403,
    shape: 'A',
    title: 'Forbidden',
    message: "The API key's policy does not allow this",
  },
  'SVC-AUTH-006': { status: 404, shape: 'A', title: 'Not Found', message: 'Account not found' },
  'SVC-CREDIT-002': {
    status: 402,
    shape: 'B',
    title: 'Payment Required',
    message: 'Spending limit would be exceeded',
  },
  'SVC-BILLING-001': {
    status: 400,
    shape: 'A',
    title: 'Bad Request',
    message: 'Checkout amount below the minimum of 5.00 USD',
  },
  'SVC-BILLING-002': {
    status: 400,
    shape: 'A',
    title: 'Bad Request',
    message: 'Checkout amount above the maximum of 10,000.00 USD',
  },
  'SVC-COUPON-001': { status: 404, shape: 'A', title: 'Not Found', message: 'Coupon not found' },
  'SVC-COUPON-002': {
    status: 409,
    shape: 'A',
    title: 'Conflict',
    message: 'Coupon already redeemed by this account',
  },
  'SVC-COUPON-003': { status: 410, shape: 'A', title: 'Gone', message: 'Coupon expired' },
  'SVC-VAL-001': { status: 400, shape: 'A', title: 'Bad Request', message: 'Invalid request' },
  'SVC-VAL-002': { status: 413, shape: 'A', title: 'Payload Too Large', message: 'Request body too large' },
  'SVC-VAL-003': {
    status: 415,
    shape: 'A',
    title: 'Unsupported Media Type',
    message: 'Content-Type must be application/json',
  },
  'SVC-VAL-004': {
    status: 422,
    shape: 'A',
    title: 'Unprocessable Entity',
    message: 'Idempotency-Key reused with a different request',
  },
  'SVC-VAL-005': {
    status: 409,
    shape: 'A',
    title: 'Conflict',
    message: 'A request with this Idempotency-Key is still in progress',
  },
  'SVC-VAL-006': { status: 404, shape: 'A', title: 'Not Found', message: 'No such route' },
  'SVC-VAL-007': { status: 409, shape: 'A', title: 'Conflict', message: 'Already exists' },
  'SVC-MCP-001': {
    status: 400,
    shape: 'A',
    title: 'Bad Request',
    message: "Tool arguments do not match the tool's input schema",
  },
  'SVC-VAL-008': { status: 405, shape: 'A', title: 'Method Not Allowed', message: 'Method not allowed' },
  'SVC-SYS-001': { status: 500, shape: 'A', title: 'Internal Server Error', message: 'Internal error' },
  'SVC-SYS-002': {
    status: 503,
    shape: 'A',
    title: 'Service Unavailable',
    message: 'A backing service is unreachable; retry after the delay in Retry-After',
  },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;

/** Throw this anywhere; the one error handler renders it in the catalogue's shape. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;
  /** Extra response headers (e.g. Retry-After). */
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message?: string,
    details: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    super(message ?? ERRORS[code].message);
    this.code = code;
    this.details = details;
    this.headers = headers;
  }

  get status(): number {
    return ERRORS[this.code].status;
  }
}

export function errorBody(code: ErrorCode, message: string, details: Record<string, unknown>) {
  const spec: ErrorSpec = ERRORS[code];
  if (spec.shape === 'B') return { statusCode: spec.status, code, error: spec.title, message, details };
  return { error: { code, message, details } };
}
