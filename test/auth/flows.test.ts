// E-mail login, sessions, API keys, status and admin suspension, end to end over HTTP.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCommands } from '../../src/cli-admin.js';
import { one, rows } from '../../src/db/index.js';
import { ManualClock } from '../../src/lib/clock.js';
import { purgeSignInStateJob } from '../../src/modules/auth/jobs.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { runCommonAuthChecks } from '../helpers/auth-checks.js';

let t: TestApp;
const clock = new ManualClock(new Date('2026-11-22T08:00:00Z'));

beforeAll(async () => {
  t = await createTestApp({ clock, env: { SVC_RATE_LIMIT_MULTIPLIER: '1000' } });
});
afterAll(async () => {
  await t?.close();
});

const json = (payload: unknown) => payload as Record<string, unknown>;

async function login(email: string) {
  const res = await t.inject({ method: 'POST', url: '/v1/auth/login', payload: { email } });
  expect(res.statusCode).toBe(202);
  return res;
}

/** The code of the newest login e-mail to the address, read from the outbox. */
async function codeFromOutbox(email: string): Promise<string> {
  const mail = await one<{ text_body: string; subject: string }>(
    t.deps.db.orm,
    sql`SELECT text_body, subject FROM email_outbox WHERE kind = 'login_code' AND to_address = ${email.toLowerCase()}
        ORDER BY id DESC LIMIT 1`,
  );
  const code = /\b(\d{6})\b/.exec(mail?.text_body ?? '')?.[1];
  if (!code) throw new Error(`no login code mailed to ${email}`);
  return code;
}

const verify = (email: string, code: string) =>
  t.inject({ method: 'POST', url: '/v1/auth/verify', payload: { email, code } });

const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

async function signIn(email: string) {
  await login(email);
  const res = await verify(email, await codeFromOutbox(email));
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as { session_token: string; expires_at: string; account_id: string };
}

const withSession = (token: string) => ({ authorization: `Bearer ${token}` });
const withKey = (key: string) => ({ 'x-svc-api-key': key });

describe('e-mail login', () => {
  it('answers 202 alike for known and unknown addresses, mails a code stored only hashed', async () => {
    const known = await t.createAccount('known@example.com');
    const a = await login('known@example.com');
    const b = await login('nobody-here@example.com');
    expect(Object.keys(a.json().data)).toEqual(Object.keys(b.json().data));
    expect(a.json().data.status).toBe('code_sent');

    const code = await codeFromOutbox('known@example.com');
    const mail = await one<{ account_id: string | null; dedupe_key: string; subject: string }>(
      t.deps.db.orm,
      sql`SELECT account_id, dedupe_key, subject FROM email_outbox WHERE to_address = 'known@example.com'`,
    );
    expect(mail?.account_id).toBe(known.accountId);
    expect(mail?.dedupe_key).toMatch(/^login_code:/);
    expect(mail?.subject).toContain(code);
    const stored = await rows<Record<string, unknown>>(
      t.deps.db.orm,
      sql`SELECT * FROM auth_login_codes WHERE email = 'known@example.com'`,
    );
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored, (_k, v) => (typeof v === 'bigint' ? String(v) : v))).not.toContain(code);
  });

  it('verifies a code into a session that authenticates, creating the account on first verify', async () => {
    const session = await signIn('new-person@example.com');
    expect(session.account_id).toMatch(/^acc_/);
    expect(Date.parse(session.expires_at) - clock.now().getTime()).toBe(24 * 3600 * 1000);
    const status = await t.inject({
      method: 'GET',
      url: '/v1/auth/status',
      headers: withSession(session.session_token),
    });
    expect(status.statusCode).toBe(200);
    expect(status.json().data).toMatchObject({ tier: 'authenticated', account_id: session.account_id });

    // A second login reaches the same account; a used code does not work twice.
    await login('New-Person@Example.com');
    const code = await codeFromOutbox('new-person@example.com');
    const again = await verify('new-person@example.com', code);
    expect(again.json().data.account_id).toBe(session.account_id);
    const reused = await verify('new-person@example.com', code);
    expect(reused.statusCode).toBe(401);
    expect(reused.json().error.code).toBe('SVC-AUTH-001');
  });

  it('reaches the account the admin API created for the address, whatever its case', async () => {
    const created = await t.createAccount('Mixed.Case@Example.com');
    const session = await signIn('MIXED.case@example.COM');
    expect(session.account_id).toBe(created.accountId);
  });

  it('allows 5 attempts, then refuses even the right code', async () => {
    await login('guesser@example.com');
    const code = await codeFromOutbox('guesser@example.com');
    for (let i = 0; i < 5; i++) {
      const res = await verify('guesser@example.com', wrongCode(code));
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('SVC-AUTH-001');
    }
    const right = await verify('guesser@example.com', code);
    expect(right.statusCode).toBe(401);
  });

  it('expires codes after 10 minutes and lets a new code supersede the old one', async () => {
    await login('slow@example.com');
    const first = await codeFromOutbox('slow@example.com');
    clock.advance(10 * 60 * 1000 + 1000);
    expect((await verify('slow@example.com', first)).statusCode).toBe(401);

    await login('slow@example.com');
    const older = await codeFromOutbox('slow@example.com');
    clock.advance(1000);
    await login('slow@example.com');
    const newer = await codeFromOutbox('slow@example.com');
    if (older !== newer) expect((await verify('slow@example.com', older)).statusCode).toBe(401);
    expect((await verify('slow@example.com', newer)).statusCode).toBe(200);
  });

  it('issues at most 5 codes per address per 15 minutes, still answering 202', async () => {
    const address = 'bombed@example.com';
    const mails = async () =>
      (
        await one<{ n: number }>(
          t.deps.db.orm,
          sql`SELECT count(*)::int AS n FROM email_outbox WHERE to_address = ${address}`,
        )
      )?.n;
    for (let i = 0; i < 5; i++) {
      await login(address);
      clock.advance(1000);
    }
    const fifth = await codeFromOutbox(address);
    await login(address);
    expect(await mails()).toBe(5);
    expect((await verify(address, fifth)).statusCode).toBe(200);
    clock.advance(15 * 60 * 1000);
    await login(address);
    expect(await mails()).toBe(6);
  });

  it('refuses a session once it has expired', async () => {
    const session = await signIn('expiring@example.com');
    const ok = await t.inject({
      method: 'GET',
      url: '/v1/keys',
      headers: withSession(session.session_token),
    });
    expect(ok.statusCode).toBe(200);
    clock.advance(24 * 3600 * 1000 + 1000);
    const late = await t.inject({
      method: 'GET',
      url: '/v1/keys',
      headers: withSession(session.session_token),
    });
    expect(late.statusCode).toBe(401);
    expect(late.json().error.code).toBe('SVC-AUTH-001');
  });

  it('refuses malformed login bodies', async () => {
    const bad = await t.inject({
      method: 'POST',
      url: '/v1/auth/verify',
      payload: { email: 'a@b.co', code: '12345' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('SVC-VAL-001');
  });
});

describe('API keys', () => {
  it('creates a key shown once, lists keys without secrets, keeps last_used_at current', async () => {
    const acc = await t.createAccount();
    const created = await t.inject({
      method: 'POST',
      url: '/v1/keys',
      headers: withKey(acc.apiKey),
      payload: { name: 'ci runner' },
    });
    expect(created.statusCode).toBe(201);
    const key = created.json().data;
    expect(key.key).toMatch(/^svc_sk_[0-9A-Za-z]{40}$/);
    expect(key.prefix).toBe(key.key.slice(0, 11));
    expect(key).toMatchObject({ name: 'ci runner', id: expect.stringMatching(/^key_/) });

    // The Bearer form works too, and using the key records last_used_at.
    const used = await t.inject({
      method: 'GET',
      url: '/v1/keys',
      headers: { authorization: `Bearer ${key.key}` },
    });
    expect(used.statusCode).toBe(200);
    expect(used.body).not.toContain(key.key);
    expect(used.body).not.toContain(acc.apiKey);
    const listed = used.json().data.find((k: { id: string }) => k.id === key.id);
    expect(listed).toMatchObject({
      name: 'ci runner',
      prefix: key.prefix,
      status: 'active',
      revoked_at: null,
    });
    expect(listed.last_used_at).toBe(clock.now().toISOString());
    expect(listed).not.toHaveProperty('key');
    expect(used.json().pagination).toEqual({ has_more: false, next_cursor: null });
  });

  it('validates names', async () => {
    const acc = await t.createAccount();
    for (const name of ['', 'x'.repeat(101)]) {
      const res = await t.inject({
        method: 'POST',
        url: '/v1/keys',
        headers: withKey(acc.apiKey),
        payload: { name },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('SVC-VAL-001');
    }
    const ok = await t.inject({
      method: 'POST',
      url: '/v1/keys',
      headers: withKey(acc.apiKey),
      payload: { name: 'x'.repeat(100) },
    });
    expect(ok.statusCode).toBe(201);
  });

  it('pages through keys with a cursor', async () => {
    const acc = await t.createAccount();
    for (const name of ['a', 'b', 'c']) {
      await t.inject({ method: 'POST', url: '/v1/keys', headers: withKey(acc.apiKey), payload: { name } });
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const url: string = `/v1/keys?limit=3${cursor ? `&cursor=${cursor}` : ''}`;
      const res = await t.inject({ method: 'GET', url, headers: withKey(acc.apiKey) });
      expect(res.statusCode).toBe(200);
      seen.push(...res.json().data.map((k: { name: string }) => k.name));
      cursor = res.json().pagination.next_cursor;
    } while (cursor);
    expect(seen).toEqual(['c', 'b', 'a', 'default']);
  });

  it('revokes a key at once and for good; refuses the key in use, unknown and foreign keys', async () => {
    const acc = await t.createAccount();
    const other = await t.createAccount();
    const second = (
      await t.inject({
        method: 'POST',
        url: '/v1/keys',
        headers: withKey(acc.apiKey),
        payload: { name: 'tmp' },
      })
    ).json().data;
    expect(
      (await t.inject({ method: 'GET', url: '/v1/keys', headers: withKey(second.key) })).statusCode,
    ).toBe(200);

    const inUse = await t.inject({
      method: 'DELETE',
      url: `/v1/keys/${acc.keyId}`,
      headers: withKey(acc.apiKey),
    });
    expect(inUse.statusCode).toBe(400);
    expect(inUse.json().error.code).toBe('SVC-AUTH-003');

    for (const keyId of ['key_doesnotexist', other.keyId]) {
      const res = await t.inject({
        method: 'DELETE',
        url: `/v1/keys/${keyId}`,
        headers: withKey(acc.apiKey),
      });
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('SVC-AUTH-002');
    }
    // The foreign key still works: nothing happened to it.
    expect(
      (await t.inject({ method: 'GET', url: '/v1/keys', headers: withKey(other.apiKey) })).statusCode,
    ).toBe(200);

    const revoked = await t.inject({
      method: 'DELETE',
      url: `/v1/keys/${second.id}`,
      headers: withKey(acc.apiKey),
    });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json().data).toEqual({
      id: second.id,
      status: 'revoked',
      revoked_at: clock.now().toISOString(),
    });
    const after = await t.inject({ method: 'GET', url: '/v1/keys', headers: withKey(second.key) });
    expect(after.statusCode).toBe(401);
    expect(after.json().error.code).toBe('SVC-AUTH-001');

    clock.advance(5000);
    const again = await t.inject({
      method: 'DELETE',
      url: `/v1/keys/${second.id}`,
      headers: withKey(acc.apiKey),
    });
    expect(again.json().data.revoked_at).toBe(revoked.json().data.revoked_at);
    const list = await t.inject({ method: 'GET', url: '/v1/keys', headers: withKey(acc.apiKey) });
    expect(list.json().data.find((k: { id: string }) => k.id === second.id).status).toBe('revoked');
  });

  it('lets a session manage keys, including revoking any key of its account', async () => {
    const acc = await t.createAccount('session-keys@example.com');
    const session = await signIn('session-keys@example.com');
    const res = await t.inject({
      method: 'DELETE',
      url: `/v1/keys/${acc.keyId}`,
      headers: withSession(session.session_token),
    });
    expect(res.statusCode).toBe(200);
    // Key and session of the same account together are fine.
    const both = await t.inject({
      method: 'POST',
      url: '/v1/keys',
      headers: { ...withSession(session.session_token) },
      payload: { name: 'from session' },
    });
    expect(both.statusCode).toBe(201);
    const mixed = await t.inject({
      method: 'GET',
      url: '/v1/keys',
      headers: { ...withSession(session.session_token), ...withKey(both.json().data.key) },
    });
    expect(mixed.statusCode).toBe(200);
  });

  it('passes the common auth checks on GET, POST and DELETE', async () => {
    await runCommonAuthChecks(t, { method: 'GET', url: '/v1/keys' });
    await runCommonAuthChecks(t, { method: 'POST', url: '/v1/keys', payload: { name: 'checks' } });
    const owner = await t.createAccount();
    await runCommonAuthChecks(
      t,
      { method: 'DELETE', url: `/v1/keys/${owner.keyId}` },
      { wrongAccount: { status: 404, code: 'SVC-AUTH-002' }, validCredential: false },
    );
  });
});

describe('status', () => {
  it('reports anonymous, wallet-identified and authenticated callers; 401 for bad credentials', async () => {
    const anon = await t.inject({ method: 'GET', url: '/v1/auth/status' });
    expect(anon.statusCode).toBe(200);
    expect(anon.json().data).toMatchObject({ tier: 'anonymous', account_id: null, wallet: null });
    expect(anon.json().data.rate_limit).toEqual({
      limit: expect.any(Number),
      remaining: expect.any(Number),
      reset: expect.any(Number),
    });
    expect(json(anon.json().data)).toHaveProperty('trust_tier');

    const wallet = '0xAbCdEf0123456789aBcDeF0123456789AbCdEf01';
    const walletOnly = await t.inject({
      method: 'GET',
      url: '/v1/auth/status',
      headers: { 'x-svc-wallet': wallet },
    });
    expect(walletOnly.json().data).toMatchObject({
      tier: 'wallet_identified',
      wallet: wallet.toLowerCase(),
      account_id: null,
    });
    // An unsigned wallet claim never reaches an account.
    const keys = await t.inject({ method: 'GET', url: '/v1/keys', headers: { 'x-svc-wallet': wallet } });
    expect(keys.statusCode).toBe(401);

    const acc = await t.createAccount();
    const authed = await t.inject({ method: 'GET', url: '/v1/auth/status', headers: withKey(acc.apiKey) });
    expect(authed.json().data).toMatchObject({
      tier: 'authenticated',
      account_id: acc.accountId,
      wallet: null,
    });

    const bad = await t.inject({ method: 'GET', url: '/v1/auth/status', headers: withKey('svc_sk_nope') });
    expect(bad.statusCode).toBe(401);
  });
});

describe('admin suspension', () => {
  it('suspends with reason and time, refuses every call with 403, reinstates', async () => {
    const acc = await t.createAccount();
    const res = await t.admin('POST', `/v1/admin/accounts/${acc.accountId}/suspend`, {
      reason: 'chargeback',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({ account_id: acc.accountId, status: 'suspended' });
    const row = await one<{ status: string; status_reason: string; status_changed_at: string }>(
      t.deps.db.orm,
      sql`SELECT status, status_reason, status_changed_at FROM accounts WHERE id = ${acc.accountId}`,
    );
    expect(row?.status_reason).toBe('chargeback');
    expect(
      new Date(String(row?.status_changed_at).replace(' ', 'T').replace(/\+00$/, 'Z')).toISOString(),
    ).toBe(clock.now().toISOString());

    for (const url of ['/v1/keys', '/v1/auth/status']) {
      const refused = await t.inject({ method: 'GET', url, headers: withKey(acc.apiKey) });
      expect(refused.statusCode, url).toBe(403);
      expect(refused.json().error.code).toBe('SVC-AUTH-004');
    }
    // Repeating is harmless and sends no second e-mail.
    expect((await t.admin('POST', `/v1/admin/accounts/${acc.accountId}/suspend`, {})).statusCode).toBe(200);
    const mails = await rows<{ kind: string }>(
      t.deps.db.orm,
      sql`SELECT kind FROM email_outbox WHERE account_id = ${acc.accountId} AND kind = 'account_suspended'`,
    );
    expect(mails).toHaveLength(1);

    const back = await t.admin('POST', `/v1/admin/accounts/${acc.accountId}/reinstate`, {
      reason: 'resolved',
    });
    expect(back.json().data).toEqual({ account_id: acc.accountId, status: 'active' });
    expect(
      (await t.inject({ method: 'GET', url: '/v1/keys', headers: withKey(acc.apiKey) })).statusCode,
    ).toBe(200);
    const events = await rows<{ status: string; reason: string | null }>(
      t.deps.db.orm,
      sql`SELECT status, reason FROM account_status_events WHERE account_id = ${acc.accountId} ORDER BY id`,
    );
    expect(events).toEqual([
      { status: 'suspended', reason: 'chargeback' },
      { status: 'active', reason: 'resolved' },
    ]);
  });

  it('refuses a suspended account at login verify', async () => {
    const acc = await t.createAccount('suspended-login@example.com');
    await t.admin('POST', `/v1/admin/accounts/${acc.accountId}/suspend`, {});
    await login('suspended-login@example.com');
    const res = await verify(
      'suspended-login@example.com',
      await codeFromOutbox('suspended-login@example.com'),
    );
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('SVC-AUTH-004');
  });

  it('answers 404 SVC-AUTH-006 for unknown accounts and 401 without the admin token', async () => {
    const res = await t.admin('POST', '/v1/admin/accounts/acc_unknown/suspend', {});
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('SVC-AUTH-006');
    const acc = await t.createAccount();
    const noToken = await t.inject({
      method: 'POST',
      url: `/v1/admin/accounts/${acc.accountId}/suspend`,
      payload: {},
    });
    expect(noToken.statusCode).toBe(401);
    const noBody = await t.inject({
      method: 'POST',
      url: `/v1/admin/accounts/${acc.accountId}/reinstate`,
      headers: { authorization: 'Bearer test-admin-token-0123456789abcdef' },
    });
    expect(noBody.statusCode).toBe(200);
  });

  it('offers the same through the CLI commands', async () => {
    const acc = await t.createAccount();
    const run = (name: string, args: Record<string, string>) => {
      const cmd = adminCommands.find((c) => c.name === name);
      if (!cmd) throw new Error(`no CLI command ${name}`);
      return cmd.run(t.deps, args);
    };
    expect(await run('suspend-account', { account: acc.accountId, reason: 'cli' })).toEqual({
      account_id: acc.accountId,
      status: 'suspended',
    });
    expect(
      (await t.inject({ method: 'GET', url: '/v1/keys', headers: withKey(acc.apiKey) })).statusCode,
    ).toBe(403);
    await run('reinstate-account', { account: acc.accountId });
    expect(
      (await t.inject({ method: 'GET', url: '/v1/keys', headers: withKey(acc.apiKey) })).statusCode,
    ).toBe(200);
  });
});

describe('housekeeping', () => {
  it('purges login codes and wallet nonces a day after they expire', async () => {
    await login('purged@example.com');
    await t.inject({
      method: 'POST',
      url: '/v1/auth/challenge',
      payload: { wallet_address: '0x00000000000000000000000000000000000000aa' },
    });
    const count = async () =>
      (
        await one<{ n: number }>(
          t.deps.db.orm,
          sql`SELECT (SELECT count(*) FROM auth_login_codes WHERE email = 'purged@example.com')
                   + (SELECT count(*) FROM auth_wallet_nonces
                      WHERE wallet_address = '0x00000000000000000000000000000000000000aa') AS n`,
        )
      )?.n;
    expect(await purgeSignInStateJob.run(t.deps)).toBeGreaterThanOrEqual(0);
    expect(Number(await count())).toBe(2);
    clock.advance(26 * 3600 * 1000);
    expect(await purgeSignInStateJob.run(t.deps)).toBeGreaterThanOrEqual(2);
    expect(Number(await count())).toBe(0);
  });
});
