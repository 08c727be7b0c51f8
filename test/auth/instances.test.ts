// Revocation and suspension take effect at once on every instance sharing one PostgreSQL.
import { sql } from 'drizzle-orm';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { one } from '../../src/db/index.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

const shared = Boolean(process.env.DATABASE_URL);
// Instances must share the session secret to accept each other's session tokens (see docs/auth.md).
const env = {
  SVC_RATE_LIMIT_MULTIPLIER: '1000',
  SVC_SESSION_SECRET: 'shared-session-secret-for-two-instances',
};

let a: TestApp;
let b: TestApp;

// PGlite is an in-process database: a second instance cannot share it, so this needs PostgreSQL.
describe.skipIf(!shared)('two instances on one PostgreSQL (skipped on PGlite: it cannot be shared)', () => {
  beforeAll(async () => {
    a = await createTestApp({ env });
    b = await createTestApp({ env, schema: a.schema as string });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('a key revoked on one instance is refused by the other on its next request', async () => {
    const acc = await a.createAccount();
    const second = (
      await a.inject({
        method: 'POST',
        url: '/v1/keys',
        headers: { 'x-svc-api-key': acc.apiKey },
        payload: { name: 'x' },
      })
    ).json().data;
    expect(
      (await b.inject({ method: 'GET', url: '/v1/keys', headers: { 'x-svc-api-key': second.key } }))
        .statusCode,
    ).toBe(200);
    const revoked = await a.inject({
      method: 'DELETE',
      url: `/v1/keys/${second.id}`,
      headers: { 'x-svc-api-key': acc.apiKey },
    });
    expect(revoked.statusCode).toBe(200);
    const after = await b.inject({
      method: 'GET',
      url: '/v1/keys',
      headers: { 'x-svc-api-key': second.key },
    });
    expect(after.statusCode).toBe(401);
    expect(after.json().error.code).toBe('SVC-AUTH-001');
  });

  it('a suspension on one instance is enforced by the other for keys, sessions and cached wallet signatures', async () => {
    // Wallet account signed in on b (its verification now cached there).
    const wallet = privateKeyToAccount(generatePrivateKey());
    const c = (
      await b.inject({
        method: 'POST',
        url: '/v1/auth/challenge',
        payload: { wallet_address: wallet.address },
      })
    ).json().data;
    const signed = {
      'x-svc-wallet': wallet.address,
      'x-svc-signature': await wallet.signMessage({ message: c.message }),
      'x-svc-nonce': c.nonce,
    };
    const walletStatus = await b.inject({ method: 'GET', url: '/v1/auth/status', headers: signed });
    expect(walletStatus.statusCode).toBe(200);
    const walletAccount = walletStatus.json().data.account_id;
    // The same signature is accepted by a too (shared nonce table).
    expect((await a.inject({ method: 'GET', url: '/v1/keys', headers: signed })).statusCode).toBe(200);

    // E-mail account: session issued by a, used on b.
    const acc = await a.createAccount('two-instances@example.com');
    await a.inject({
      method: 'POST',
      url: '/v1/auth/login',
      payload: { email: 'two-instances@example.com' },
    });
    const mail = await one<{ text_body: string }>(
      a.deps.db.orm,
      sql`SELECT text_body FROM email_outbox WHERE to_address = 'two-instances@example.com'`,
    );
    const code = /\b(\d{6})\b/.exec(mail?.text_body ?? '')?.[1] ?? '';
    const session = (
      await a.inject({
        method: 'POST',
        url: '/v1/auth/verify',
        payload: { email: 'two-instances@example.com', code },
      })
    ).json().data.session_token;
    const bearer = { authorization: `Bearer ${session}` };
    expect((await b.inject({ method: 'GET', url: '/v1/keys', headers: bearer })).statusCode).toBe(200);

    for (const accountId of [acc.accountId, walletAccount]) {
      const res = await a.admin('POST', `/v1/admin/accounts/${accountId}/suspend`, {
        reason: 'two instances',
      });
      expect(res.statusCode).toBe(200);
    }
    for (const [label, headers] of [
      ['key', { 'x-svc-api-key': acc.apiKey }],
      ['session', bearer],
      ['wallet signature', signed],
    ] as const) {
      const res = await b.inject({ method: 'GET', url: '/v1/keys', headers });
      expect(res.statusCode, label).toBe(403);
      expect(res.json().error.code, label).toBe('SVC-AUTH-004');
    }
  });
});
