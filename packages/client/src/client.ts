// SvcClient: every public endpoint of the service, typed from its OpenAPI document, over one transport
// that retries safely. `call()` (call.ts) adds discovery and failover on top of `execute()`.
import { type Challenge, WalletSession, type WalletSigner } from './auth.js';
import { type CallOptions, type CallResult, callWithFailover } from './call.js';
import { errorFromResponse } from './errors.js';
import { type RetryPolicy, Transport } from './transport.js';
import type { BodyOf, QueryOf, ResponseOf } from './types.js';

export interface SvcClientOptions {
  /** The service's base URL, e.g. http://localhost:8080 */
  baseUrl: string;
  /** API key (`svc_sk_...`), sent as `x-svc-api-key`. */
  apiKey?: string;
  /** Session token from `verifyLogin()` or an identity provider, sent as `Authorization: Bearer`. */
  sessionToken?: string;
  /** A viem account (or any `{address, signMessage}`): requests are signed with wallet signatures. */
  wallet?: WalletSigner;
  /** Admin token, for the admin methods only. */
  adminToken?: string;
  retry?: Partial<RetryPolicy>;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export interface ExecuteOptions {
  /** Idempotency-Key: with it, a retried request is answered once (and charged once). */
  idempotencyKey?: string;
  /** `X-Svc-Max-Price-Usdc`: the price the caller accepts; the service refuses a dearer call uncharged. */
  maxPriceUsdc?: string;
}

export type ExecuteAnswer = ResponseOf<'/v1/execute/{providerId}/{endpointSlug}', 'post'>;

/** An execute answer: 200, or a provider's own 4xx (charged) with its status. */
export interface ExecuteResult {
  status: number;
  svc: ExecuteAnswer['svc'];
  data: unknown;
  requestId: string | undefined;
}

/**
 * A key's spending policy: `daily_limit_usdc`, `total_limit_usdc`, `per_call_max_usdc` (USDC strings),
 * `allowed_providers`, `allowed_categories`, `expires_at` (ISO date-time); every field optional.
 */
export type KeyPolicy = NonNullable<BodyOf<'/v1/keys', 'post'>['policy']>;

const enc = encodeURIComponent;

export class SvcClient {
  readonly transport: Transport;
  private apiKey: string | undefined;
  private sessionToken: string | undefined;
  private readonly adminToken: string | undefined;
  private readonly walletSession: WalletSession | undefined;

  constructor(opts: SvcClientOptions) {
    this.apiKey = opts.apiKey;
    this.sessionToken = opts.sessionToken;
    this.adminToken = opts.adminToken;
    this.transport = new Transport({
      baseUrl: opts.baseUrl,
      ...(opts.fetch ? { fetch: opts.fetch } : {}),
      ...(opts.retry ? { retry: opts.retry } : {}),
      ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}),
      authHeaders: () => this.credentialHeaders(),
    });
    this.walletSession = opts.wallet
      ? new WalletSession(opts.wallet, async (address) => (await this.challenge(address)).data)
      : undefined;
  }

  /** Uses this API key from now on (e.g. one just created). */
  useApiKey(apiKey: string): void {
    this.apiKey = apiKey;
  }

  /** Uses this session token from now on. */
  useSessionToken(sessionToken: string): void {
    this.sessionToken = sessionToken;
  }

  /** The wallet signature's expiry (ms since epoch), once a signed request has been made. */
  get walletExpiresAt(): number | undefined {
    return this.walletSession?.expiresAt;
  }

  private async credentialHeaders(): Promise<Record<string, string>> {
    if (this.apiKey) return { 'x-svc-api-key': this.apiKey };
    if (this.sessionToken) return { authorization: `Bearer ${this.sessionToken}` };
    if (this.walletSession) return this.walletSession.headers();
    return {};
  }

  private async json<T>(req: Parameters<Transport['request']>[0]): Promise<T> {
    return (await this.transport.request<T>(req)).body;
  }

  private admin<T>(req: Parameters<Transport['request']>[0]): Promise<T> {
    if (!this.adminToken) throw new TypeError('adminToken is required for admin methods');
    // The admin token replaces any account credential on admin routes.
    return this.json<T>({ ...req, headers: { ...req.headers, authorization: `Bearer ${this.adminToken}` } });
  }

  // --- health
  health() {
    return this.json<ResponseOf<'/healthz', 'get'>>({ method: 'GET', path: '/healthz' });
  }
  ready() {
    return this.json<ResponseOf<'/readyz', 'get'>>({ method: 'GET', path: '/readyz' });
  }

  // --- auth
  requestLogin(email: string) {
    return this.json<ResponseOf<'/v1/auth/login', 'post', 202>>({
      method: 'POST',
      path: '/v1/auth/login',
      anonymous: true,
      body: { email },
    });
  }
  /** Exchanges the e-mailed code for a session token, which this client then uses. */
  async verifyLogin(email: string, code: string) {
    const session = await this.json<ResponseOf<'/v1/auth/verify', 'post'>>({
      method: 'POST',
      path: '/v1/auth/verify',
      anonymous: true,
      body: { email, code },
    });
    this.sessionToken = session.data.session_token;
    return session;
  }
  challenge(walletAddress: string) {
    return this.json<{ data: Challenge; meta: { request_id: string } }>({
      method: 'POST',
      path: '/v1/auth/challenge',
      anonymous: true,
      body: { wallet_address: walletAddress },
    });
  }
  authStatus() {
    return this.json<ResponseOf<'/v1/auth/status', 'get'>>({ method: 'GET', path: '/v1/auth/status' });
  }

  // --- API keys
  listKeys(query: QueryOf<'/v1/keys', 'get'> = {}) {
    return this.json<ResponseOf<'/v1/keys', 'get'>>({ method: 'GET', path: '/v1/keys', query });
  }
  /**
   * Creates an API key; with a `policy` it is an agent key, held to its budgets, allow-lists and expiry
   * (docs/keys.md). The secret (`data.key`) is shown only in this answer.
   */
  createKey(name: string, policy?: KeyPolicy) {
    return this.json<ResponseOf<'/v1/keys', 'post', 201>>({
      method: 'POST',
      path: '/v1/keys',
      body: policy === undefined ? { name } : { name, policy },
    });
  }
  /** Replaces a key's spending policy; `null` removes it. Applies from the key's next call. */
  setKeyPolicy(keyId: string, policy: KeyPolicy | null) {
    return this.json<ResponseOf<'/v1/keys/{keyId}/policy', 'put'>>({
      method: 'PUT',
      path: `/v1/keys/${enc(keyId)}/policy`,
      body: { policy },
    });
  }
  revokeKey(keyId: string) {
    return this.json<ResponseOf<'/v1/keys/{keyId}', 'delete'>>({
      method: 'DELETE',
      path: `/v1/keys/${enc(keyId)}`,
    });
  }

  // --- catalogue and discovery
  listProviders(query: QueryOf<'/v1/providers', 'get'> = {}) {
    return this.json<ResponseOf<'/v1/providers', 'get'>>({ method: 'GET', path: '/v1/providers', query });
  }
  getProvider(providerId: string) {
    return this.json<ResponseOf<'/v1/providers/{providerId}', 'get'>>({
      method: 'GET',
      path: `/v1/providers/${enc(providerId)}`,
    });
  }
  getEndpoint(providerId: string, slug: string) {
    return this.json<ResponseOf<'/v1/providers/{providerId}/endpoints/{slug}', 'get'>>({
      method: 'GET',
      path: `/v1/providers/${enc(providerId)}/endpoints/${enc(slug)}`,
    });
  }
  discover(body: BodyOf<'/v1/discover', 'post'>) {
    return this.json<ResponseOf<'/v1/discover', 'post'>>({ method: 'POST', path: '/v1/discover', body });
  }

  // --- execution
  /**
   * One paid call. Answers 200 and a provider's own 4xx (charged) as results; everything else throws an
   * SvcError. Without an idempotency key an unanswered request is not resent (it may have been charged).
   */
  async execute(
    providerId: string,
    endpointSlug: string,
    params: Record<string, unknown> = {},
    opts: ExecuteOptions = {},
  ): Promise<ExecuteResult> {
    const headers: Record<string, string> = {};
    if (opts.idempotencyKey) headers['idempotency-key'] = opts.idempotencyKey;
    if (opts.maxPriceUsdc) headers['x-svc-max-price-usdc'] = opts.maxPriceUsdc;
    const res = await this.transport.request<unknown>({
      method: 'POST',
      path: `/v1/execute/${enc(providerId)}/${enc(endpointSlug)}`,
      body: params,
      headers,
      charged: true,
      // A provider's 4xx arrives as {svc, data} with its status: charged, and an answer, not a failure.
      acceptStatus: (status) => status >= 400 && status < 500,
    });
    const body = res.body as Partial<ExecuteAnswer> & { error?: unknown };
    const requestId = res.headers.get('x-request-id') ?? undefined;
    if (res.status >= 400 && (body?.svc === undefined || body.error !== undefined)) {
      throw errorFromResponse(res.status, body, res.headers);
    }
    return { status: res.status, svc: body.svc as ExecuteAnswer['svc'], data: body.data, requestId };
  }

  /** Discovers candidates and calls the best one, failing over on refunded outcomes (call.ts). */
  call(opts: CallOptions): Promise<CallResult> {
    return callWithFailover(this, opts);
  }

  // --- wallet and billing
  balance() {
    return this.json<ResponseOf<'/v1/wallet/balance', 'get'>>({ method: 'GET', path: '/v1/wallet/balance' });
  }
  history(query: QueryOf<'/v1/wallet/history', 'get'> = {}) {
    return this.json<ResponseOf<'/v1/wallet/history', 'get'>>({
      method: 'GET',
      path: '/v1/wallet/history',
      query,
    });
  }
  billingBalance() {
    return this.json<ResponseOf<'/v1/billing/balance', 'get'>>({
      method: 'GET',
      path: '/v1/billing/balance',
    });
  }
  transactions(query: QueryOf<'/v1/billing/transactions', 'get'> = {}) {
    return this.json<ResponseOf<'/v1/billing/transactions', 'get'>>({
      method: 'GET',
      path: '/v1/billing/transactions',
      query,
    });
  }
  usage(query: QueryOf<'/v1/billing/usage', 'get'> = {}) {
    return this.json<ResponseOf<'/v1/billing/usage', 'get'>>({
      method: 'GET',
      path: '/v1/billing/usage',
      query,
    });
  }
  /** The usage CSV (RFC 4180) as text. */
  usageCsv(query: QueryOf<'/v1/billing/usage/export', 'get'> = {}) {
    return this.json<string>({ method: 'GET', path: '/v1/billing/usage/export', query, text: true });
  }
  setLimits(body: BodyOf<'/v1/billing/limits', 'put'>) {
    return this.json<ResponseOf<'/v1/billing/limits', 'put'>>({
      method: 'PUT',
      path: '/v1/billing/limits',
      body,
    });
  }
  setAlerts(body: BodyOf<'/v1/billing/alerts', 'put'>) {
    return this.json<ResponseOf<'/v1/billing/alerts', 'put'>>({
      method: 'PUT',
      path: '/v1/billing/alerts',
      body,
    });
  }
  checkout(body: BodyOf<'/v1/billing/checkout', 'post'>) {
    return this.json<ResponseOf<'/v1/billing/checkout', 'post'>>({
      method: 'POST',
      path: '/v1/billing/checkout',
      body,
    });
  }
  payments(query: QueryOf<'/v1/billing/payments', 'get'> = {}) {
    return this.json<ResponseOf<'/v1/billing/payments', 'get'>>({
      method: 'GET',
      path: '/v1/billing/payments',
      query,
    });
  }
  redeemCoupon(code: string) {
    return this.json<ResponseOf<'/v1/billing/coupons/redeem', 'post'>>({
      method: 'POST',
      path: '/v1/billing/coupons/redeem',
      body: { code },
    });
  }

  // --- admin (needs `adminToken`)
  adminCreateAccount(body: BodyOf<'/v1/admin/accounts', 'post'>) {
    return this.admin<ResponseOf<'/v1/admin/accounts', 'post', 201>>({
      method: 'POST',
      path: '/v1/admin/accounts',
      body,
    });
  }
  adminSetAccountStatus(accountId: string, action: 'suspend' | 'reinstate', reason?: string) {
    return this.admin<ResponseOf<'/v1/admin/accounts/{accountId}/suspend', 'post'>>({
      method: 'POST',
      path: `/v1/admin/accounts/${enc(accountId)}/${action}`,
      body: reason === undefined ? {} : { reason },
    });
  }
  /** Credits an account; the idempotency key makes a retried credit count once. */
  adminCredit(
    accountId: string,
    body: BodyOf<'/v1/admin/accounts/{accountId}/credits', 'post'>,
    idempotencyKey?: string,
  ) {
    return this.admin<ResponseOf<'/v1/admin/accounts/{accountId}/credits', 'post', 201>>({
      method: 'POST',
      path: `/v1/admin/accounts/${enc(accountId)}/credits`,
      body,
      ...(idempotencyKey ? { headers: { 'idempotency-key': idempotencyKey } } : {}),
      charged: true,
    });
  }
  adminCreateProvider(body: BodyOf<'/v1/admin/providers', 'post'>) {
    return this.admin<ResponseOf<'/v1/admin/providers', 'post', 201>>({
      method: 'POST',
      path: '/v1/admin/providers',
      body,
    });
  }
  adminReplaceProvider(providerId: string, body: BodyOf<'/v1/admin/providers/{providerId}', 'put'>) {
    return this.admin<ResponseOf<'/v1/admin/providers/{providerId}', 'put'>>({
      method: 'PUT',
      path: `/v1/admin/providers/${enc(providerId)}`,
      body,
    });
  }
  adminDeleteProvider(providerId: string) {
    return this.admin<ResponseOf<'/v1/admin/providers/{providerId}', 'delete'>>({
      method: 'DELETE',
      path: `/v1/admin/providers/${enc(providerId)}`,
    });
  }
  adminCreateCoupon(body: BodyOf<'/v1/admin/coupons', 'post'>) {
    return this.admin<ResponseOf<'/v1/admin/coupons', 'post', 201>>({
      method: 'POST',
      path: '/v1/admin/coupons',
      body,
    });
  }
}
