// Shared security checks for every authenticated route (STYLE.md "Tests"; issue 3).
//
// Usage, inside one `it` of your test file:
//
//   import { runCommonAuthChecks } from '../helpers/auth-checks.js';
//
//   it('refuses missing, bad, revoked, expired and suspended credentials', async () => {
//     await runCommonAuthChecks(t, { method: 'GET', url: '/v1/wallet/balance' });
//   });
//
//   // A route addressing one account's resource: another account must not reach it.
//   it('keeps keys per account', async () => {
//     const owner = await t.createAccount();
//     await runCommonAuthChecks(
//       t,
//       { method: 'DELETE', url: `/v1/keys/${owner.keyId}` },
//       { wrongAccount: { status: 404, code: 'SVC-AUTH-002' }, validCredential: false },
//     );
//   });
//
// What it asserts, each with a message naming the case:
//   - no credential                                     → 401 SVC-AUTH-001
//   - malformed key (x-svc-api-key and Bearer forms)    → 401 SVC-AUTH-001
//   - well-formed but unknown key                       → 401 SVC-AUTH-001
//   - revoked key (revoked through DELETE /v1/keys/:id)  → 401 SVC-AUTH-001
//   - expired session token, garbage bearer token       → 401 SVC-AUTH-001
//   - API key and session token of different accounts   → 401 SVC-AUTH-001
//   - suspended account, by key and by session          → 403 SVC-AUTH-004
//   - options.wrongAccount: a fresh account's key gets exactly that status (and code)
//   - options.validCredential (default true): a fresh account's key is neither 401 nor 403, so the checks
//     above cannot pass merely because the route refuses everyone. Set false when a fresh account cannot
//     be let in (e.g. the route addresses another account's resource).
//
// `route.payload` should be a VALID body: the checks are about credentials, not validation. Each call
// creates up to four accounts through the admin API. Build the TestApp with a high
// SVC_RATE_LIMIT_MULTIPLIER (e.g. env: { SVC_RATE_LIMIT_MULTIPLIER: '1000' }) so the anonymous requests
// made here are not rate limited.
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { issueSession, SESSION_TTL_SECONDS } from '../../src/modules/auth/sessions.js';
import type { TestApp } from './app.js';

export interface AuthCheckRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  payload?: unknown;
  /** Extra headers sent with every check (never credentials). */
  headers?: Record<string, string>;
}

export interface AuthCheckOptions {
  /** Expected answer for an authenticated caller who does not own the addressed resource. */
  wrongAccount?: { status: number; code?: string };
  /** Assert that a fresh account's key is let through (not 401/403). Default true. */
  validCredential?: boolean;
}

type Credentials = Record<string, string>;

function call(t: TestApp, route: AuthCheckRoute, credentials: Credentials): Promise<LightMyRequestResponse> {
  return t.inject({
    method: route.method,
    url: route.url,
    headers: { ...route.headers, ...credentials },
    ...(route.payload === undefined ? {} : { payload: route.payload as InjectOptions['payload'] }),
  });
}

function expectError(res: LightMyRequestResponse, status: number, code: string, label: string) {
  expect(res.statusCode, `${label}: status (body ${res.body})`).toBe(status);
  expect(res.json().error?.code, `${label}: error code`).toBe(code);
}

/** Creates a second key for the account, revokes it through the keys API and returns it. */
async function revokedKeyOf(t: TestApp, apiKey: string): Promise<string> {
  const created = await t.inject({
    method: 'POST',
    url: '/v1/keys',
    headers: { 'x-svc-api-key': apiKey },
    payload: { name: 'to be revoked' },
  });
  expect(created.statusCode, `creating a key to revoke: ${created.body}`).toBe(201);
  const { id, key } = created.json().data;
  const revoked = await t.inject({
    method: 'DELETE',
    url: `/v1/keys/${id}`,
    headers: { 'x-svc-api-key': apiKey },
  });
  expect(revoked.statusCode, `revoking a key: ${revoked.body}`).toBe(200);
  return key;
}

export async function runCommonAuthChecks(
  t: TestApp,
  route: AuthCheckRoute,
  options: AuthCheckOptions = {},
): Promise<void> {
  const unauthorized = async (label: string, credentials: Credentials) =>
    expectError(await call(t, route, credentials), 401, 'SVC-AUTH-001', label);

  await unauthorized('no credential', {});
  await unauthorized('malformed key header', { 'x-svc-api-key': 'not-a-key' });
  await unauthorized('malformed bearer key', { authorization: 'Bearer svc_sk_short' });
  await unauthorized('unknown key', { 'x-svc-api-key': `svc_sk_${'A1b2C3d4E5'.repeat(4)}` });
  await unauthorized('garbage bearer token', { authorization: 'Bearer not.a.jwt' });

  const owner = await t.createAccount();
  await unauthorized('revoked key', { 'x-svc-api-key': await revokedKeyOf(t, owner.apiKey) });

  const longAgo = new Date(t.deps.clock.now().getTime() - (SESSION_TTL_SECONDS + 60) * 1000);
  const expired = await issueSession(t.deps, owner.accountId, longAgo);
  await unauthorized('expired session', { authorization: `Bearer ${expired.session_token}` });

  const other = await t.createAccount();
  const otherSession = await issueSession(t.deps, other.accountId);
  await unauthorized('key and session of different accounts', {
    'x-svc-api-key': owner.apiKey,
    authorization: `Bearer ${otherSession.session_token}`,
  });

  const suspended = await t.createAccount();
  const suspendedSession = await issueSession(t.deps, suspended.accountId);
  const suspend = await t.admin('POST', `/v1/admin/accounts/${suspended.accountId}/suspend`, {
    reason: 'auth checks',
  });
  expect(suspend.statusCode, `suspending: ${suspend.body}`).toBe(200);
  for (const [label, credentials] of [
    ['suspended account (key)', { 'x-svc-api-key': suspended.apiKey }],
    ['suspended account (session)', { authorization: `Bearer ${suspendedSession.session_token}` }],
  ] as const) {
    expectError(await call(t, route, credentials), 403, 'SVC-AUTH-004', label);
  }

  if (options.wrongAccount) {
    const res = await call(t, route, { 'x-svc-api-key': other.apiKey });
    expect(res.statusCode, `wrong account: status (body ${res.body})`).toBe(options.wrongAccount.status);
    if (options.wrongAccount.code) {
      expect(res.json().error?.code, 'wrong account: error code').toBe(options.wrongAccount.code);
    }
  }

  if (options.validCredential ?? true) {
    const fresh = await t.createAccount();
    const res = await call(t, route, { 'x-svc-api-key': fresh.apiKey });
    expect([401, 403], `valid key must be let through (got ${res.statusCode} ${res.body})`).not.toContain(
      res.statusCode,
    );
  }
}
