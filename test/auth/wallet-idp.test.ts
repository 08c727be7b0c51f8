// Wallet sign-in with real secp256k1 signatures, an external identity provider served from a local JWKS,
// and a check that no credential reaches the logs.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { parseSiweMessage } from 'viem/siwe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { one } from '../../src/db/index.js';
import { ManualClock } from '../../src/lib/clock.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

const ISSUER = 'https://idp.example.test/';
const AUDIENCE = 'svc-test-audience';

let t: TestApp;
let jwksServer: Server;
let rpcServer: Server;

// A contract wallet (EIP-1271) faked at the JSON-RPC boundary: the node answers the ERC-6492 validator's
// eth_call with true only when the call carries the wallet's address and the one signature it accepts.
const CONTRACT_WALLET = '0x00000000000000000000000000000000c0ffee01';
const ACCEPTED_SIGNATURE = `0x${'5a'.repeat(96)}`;
let ethCalls = 0;
function fakeContractWalletRpc(req: IncomingMessage, res: ServerResponse) {
  let body = '';
  req.on('data', (chunk) => {
    body += chunk;
  });
  req.on('end', () => {
    const rpc = JSON.parse(body) as { id: number; method: string; params: [{ data?: string }] };
    let result: string | undefined;
    if (rpc.method === 'eth_call') {
      ethCalls++;
      const data = rpc.params[0].data?.toLowerCase() ?? '';
      const ok = data.includes(CONTRACT_WALLET.slice(2)) && data.includes(ACCEPTED_SIGNATURE.slice(2));
      result = `0x${(ok ? '1' : '0').padStart(64, '0')}`;
    } else if (rpc.method === 'eth_chainId') {
      result = '0x14a34';
    }
    const reply =
      result === undefined
        ? { jsonrpc: '2.0', id: rpc.id, error: { code: -32601, message: 'method not found' } }
        : { jsonrpc: '2.0', id: rpc.id, result };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
  });
}
let idpKey: CryptoKey;
const clock = new ManualClock(new Date('2026-11-22T08:00:00Z'));

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  idpKey = pair.privateKey;
  const jwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: 'test-key-1', alg: 'ES256', use: 'sig' };
  jwksServer = createServer((req, res) => {
    if (req.url !== '/.well-known/jwks.json') return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  const { port } = jwksServer.address() as AddressInfo;
  rpcServer = createServer(fakeContractWalletRpc);
  await new Promise<void>((resolve) => rpcServer.listen(0, '127.0.0.1', resolve));
  const rpcPort = (rpcServer.address() as AddressInfo).port;
  t = await createTestApp({
    clock,
    env: {
      SVC_RATE_LIMIT_MULTIPLIER: '1000',
      SVC_AUTH_JWKS_URL: `http://127.0.0.1:${port}/.well-known/jwks.json`,
      SVC_AUTH_ISSUER: ISSUER,
      SVC_AUTH_AUDIENCE: AUDIENCE,
      SVC_CHAIN_RPC_URL: `http://127.0.0.1:${rpcPort}`,
    },
  });
});
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => jwksServer?.close(resolve));
  await new Promise((resolve) => rpcServer?.close(resolve));
});

// ---------------------------------------------------------------- wallet sign-in

async function challenge(address: string) {
  const res = await t.inject({
    method: 'POST',
    url: '/v1/auth/challenge',
    payload: { wallet_address: address },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as { nonce: string; message: string; expires_at: string };
}

async function signedHeaders(wallet: PrivateKeyAccount) {
  const c = await challenge(wallet.address);
  const signature = await wallet.signMessage({ message: c.message });
  return { 'x-svc-wallet': wallet.address, 'x-svc-signature': signature, 'x-svc-nonce': c.nonce };
}

const status = (headers: Record<string, string>) =>
  t.inject({ method: 'GET', url: '/v1/auth/status', headers });

describe('wallet sign-in', () => {
  it('issues an EIP-4361 message bound to the wallet, valid one hour', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const c = await challenge(wallet.address.toLowerCase());
    const parsed = parseSiweMessage(c.message);
    expect(parsed.address).toBe(wallet.address);
    expect(parsed.nonce).toBe(c.nonce);
    expect(parsed.chainId).toBe(t.config.chain.chainId);
    expect(parsed.uri).toBe(t.config.publicUrl);
    expect(parsed.expirationTime?.toISOString()).toBe(c.expires_at);
    expect(Date.parse(c.expires_at) - clock.now().getTime()).toBe(3600 * 1000);
    const bad = await t.inject({
      method: 'POST',
      url: '/v1/auth/challenge',
      payload: { wallet_address: '0x123' },
    });
    expect(bad.statusCode).toBe(400);
  });

  it("creates the wallet's account on the first valid signature and authenticates each request", async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const headers = await signedHeaders(wallet);
    const first = await status(headers);
    expect(first.statusCode, first.body).toBe(200);
    const data = first.json().data;
    expect(data).toMatchObject({ tier: 'authenticated', wallet: wallet.address.toLowerCase() });
    const row = await one<{ id: string }>(
      t.deps.db.orm,
      sql`SELECT id FROM accounts WHERE wallet_address = ${wallet.address.toLowerCase()}`,
    );
    expect(row?.id).toBe(data.account_id);

    // Later requests (cached verification) and a second challenge reach the same account.
    expect((await status(headers)).json().data.account_id).toBe(data.account_id);
    expect((await status(await signedHeaders(wallet))).json().data.account_id).toBe(data.account_id);

    // A signed wallet may manage keys; the key then acts for the same account.
    const key = await t.inject({ method: 'POST', url: '/v1/keys', headers, payload: { name: 'agent' } });
    expect(key.statusCode).toBe(201);
    const viaKey = await status({ 'x-svc-api-key': key.json().data.key });
    expect(viaKey.json().data).toMatchObject({
      account_id: data.account_id,
      wallet: wallet.address.toLowerCase(),
    });
  });

  it('refuses wrong signatures, foreign, unknown and expired nonces, and incomplete headers', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const intruder = privateKeyToAccount(generatePrivateKey());
    const good = await signedHeaders(wallet);
    const expectRefused = async (label: string, headers: Record<string, string>) => {
      const res = await t.inject({ method: 'GET', url: '/v1/keys', headers });
      expect(res.statusCode, label).toBe(401);
      expect(res.json().error.code, label).toBe('SVC-AUTH-001');
    };

    const c = await challenge(wallet.address);
    await expectRefused('signed by another key', {
      ...good,
      'x-svc-nonce': c.nonce,
      'x-svc-signature': await intruder.signMessage({ message: c.message }),
    });
    await expectRefused('signature of another message', {
      ...good,
      'x-svc-signature': await wallet.signMessage({ message: 'something else' }),
    });
    // The intruder's own nonce and signature, presented for the victim's wallet.
    const foreign = await signedHeaders(intruder);
    await expectRefused('foreign nonce', { ...foreign, 'x-svc-wallet': wallet.address });
    await expectRefused('unknown nonce', { ...good, 'x-svc-nonce': 'Unknown0Nonce0123456789' });
    await expectRefused('no nonce', {
      'x-svc-wallet': wallet.address,
      'x-svc-signature': good['x-svc-signature'],
    });
    await expectRefused('no wallet', {
      'x-svc-signature': good['x-svc-signature'],
      'x-svc-nonce': good['x-svc-nonce'],
    });

    // Valid now (and cached), refused once the nonce has expired.
    expect((await t.inject({ method: 'GET', url: '/v1/keys', headers: good })).statusCode).toBe(200);
    clock.advance(3600 * 1000 + 1000);
    await expectRefused('expired nonce', good);
  });

  it('accepts a contract wallet through EIP-1271 when a chain RPC is configured', async () => {
    const c = await challenge(CONTRACT_WALLET);
    const before = ethCalls;
    const headers = { 'x-svc-wallet': CONTRACT_WALLET, 'x-svc-nonce': c.nonce };
    const refused = await status({ ...headers, 'x-svc-signature': `0x${'a7'.repeat(96)}` });
    expect(refused.statusCode).toBe(401);
    const accepted = await status({ ...headers, 'x-svc-signature': ACCEPTED_SIGNATURE });
    expect(accepted.statusCode, accepted.body).toBe(200);
    expect(accepted.json().data).toMatchObject({ tier: 'authenticated', wallet: CONTRACT_WALLET });
    expect(ethCalls - before).toBe(2);
  });

  it('refuses a suspended wallet account at once, even with a cached signature', async () => {
    const wallet = privateKeyToAccount(generatePrivateKey());
    const headers = await signedHeaders(wallet);
    const accountId = (await status(headers)).json().data.account_id;
    await t.admin('POST', `/v1/admin/accounts/${accountId}/suspend`, { reason: 'abuse' });
    const res = await status(headers);
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('SVC-AUTH-004');
  });
});

// ---------------------------------------------------------------- external identity provider

async function idpToken(
  claims: Record<string, unknown>,
  opts: { sub?: string; aud?: string; iss?: string; expIn?: number; key?: CryptoKey } = {},
) {
  const now = Math.floor(clock.now().getTime() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: 'test-key-1' })
    .setSubject(opts.sub ?? `user-${Math.random().toString(36).slice(2)}`)
    .setIssuer(opts.iss ?? ISSUER)
    .setAudience(opts.aud ?? AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + (opts.expIn ?? 300))
    .sign(opts.key ?? idpKey);
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('external identity provider', () => {
  it('finds or creates the account by subject, linking a verified e-mail to its account', async () => {
    const created = await t.createAccount('idp-user@example.com');
    const linked = await status(
      bearer(await idpToken({ email: 'IDP-User@Example.com', email_verified: true }, { sub: 'sub-1' })),
    );
    expect(linked.statusCode, linked.body).toBe(200);
    expect(linked.json().data).toMatchObject({ tier: 'authenticated', account_id: created.accountId });
    // Same subject later, without the e-mail claim: same account.
    const again = await status(bearer(await idpToken({}, { sub: 'sub-1' })));
    expect(again.json().data.account_id).toBe(created.accountId);

    const fresh = await status(bearer(await idpToken({}, { sub: 'sub-2' })));
    const freshId = fresh.json().data.account_id;
    expect(freshId).toMatch(/^acc_/);
    expect(freshId).not.toBe(created.accountId);
    expect((await status(bearer(await idpToken({}, { sub: 'sub-2' })))).json().data.account_id).toBe(freshId);

    // Sessions of the provider manage keys like any credential.
    const keys = await t.inject({
      method: 'GET',
      url: '/v1/keys',
      headers: bearer(await idpToken({}, { sub: 'sub-1' })),
    });
    expect(keys.json().data.map((k: { id: string }) => k.id)).toContain(created.keyId);
  });

  it('does not link an e-mail the provider marks unverified', async () => {
    const created = await t.createAccount('unverified@example.com');
    const res = await status(
      bearer(await idpToken({ email: 'unverified@example.com', email_verified: false })),
    );
    expect(res.statusCode).toBe(200);
    expect(res.json().data.account_id).not.toBe(created.accountId);
  });

  it('refuses expired tokens, wrong audience or issuer, unknown keys and symmetric algorithms', async () => {
    const stranger = (await generateKeyPair('ES256')).privateKey;
    const forged = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('x')
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime(Math.floor(clock.now().getTime() / 1000) + 300)
      .sign(new TextEncoder().encode('guessed-secret-guessed-secret-00'));
    const cases: [string, string][] = [
      ['expired', await idpToken({}, { expIn: -120 })],
      ['wrong audience', await idpToken({}, { aud: 'someone-else' })],
      ['wrong issuer', await idpToken({}, { iss: 'https://evil.example/' })],
      ['key not in the JWKS', await idpToken({}, { key: stranger })],
      ['HS256 with a guessed secret', forged],
    ];
    for (const [label, token] of cases) {
      const res = await t.inject({ method: 'GET', url: '/v1/keys', headers: bearer(token) });
      expect(res.statusCode, label).toBe(401);
      expect(res.json().error.code, label).toBe('SVC-AUTH-001');
    }
  });
});

// ---------------------------------------------------------------- logs

describe('logs', () => {
  it('never contain a key, code, session token, signature or nonce', async () => {
    let output = '';
    const sink = new Writable({
      write(chunk, _enc, done) {
        output += chunk.toString();
        done();
      },
    });
    const logged: FastifyInstance = await buildApp(t.deps, {
      logger: {
        level: 'trace',
        stream: sink,
        // Log every request header too, so redaction is what keeps credentials out.
        serializers: {
          req: (req: { method: string; url: string; headers: Record<string, unknown> }) => ({
            method: req.method,
            url: req.url,
            headers: req.headers,
          }),
        },
      },
    });
    try {
      const call = (
        method: 'GET' | 'POST',
        url: string,
        headers: Record<string, string> = {},
        payload?: object,
      ) => logged.inject({ method, url, headers, ...(payload ? { payload } : {}) });
      const acc = await t.createAccount('logged@example.com');
      await call('GET', '/v1/keys', { 'x-svc-api-key': acc.apiKey });
      await call('GET', '/v1/keys', { authorization: `Bearer ${acc.apiKey}` });
      await call('POST', '/v1/auth/login', {}, { email: 'logged@example.com' });
      const mail = await one<{ text_body: string }>(
        t.deps.db.orm,
        sql`SELECT text_body FROM email_outbox WHERE to_address = 'logged@example.com' ORDER BY id DESC LIMIT 1`,
      );
      const code = /\b(\d{6})\b/.exec(mail?.text_body ?? '')?.[1] ?? 'missing';
      const verified = await call('POST', '/v1/auth/verify', {}, { email: 'logged@example.com', code });
      const session = verified.json().data.session_token as string;
      await call('GET', '/v1/keys', { authorization: `Bearer ${session}` });
      const created = await call(
        'POST',
        '/v1/keys',
        { authorization: `Bearer ${session}` },
        { name: 'logged' },
      );
      const newKey = created.json().data.key as string;
      const wallet = privateKeyToAccount(generatePrivateKey());
      const headers = await signedHeaders(wallet);
      await call('GET', '/v1/auth/status', headers);
      await call('GET', '/v1/keys', { 'x-svc-api-key': 'svc_sk_wrongwrongwrongwrongwrongwrongwrong' });

      // The logs were captured: one access line per request (they carry no headers at all).
      expect(output.match(/"msg":"request"/g)?.length).toBe(8);
      for (const [label, secret] of [
        ['api key', acc.apiKey],
        ['created key', newKey],
        ['session token', session],
        ['signature', headers['x-svc-signature']],
        ['nonce', headers['x-svc-nonce']],
      ] as const) {
        expect(output.includes(secret), `${label} appears in the logs`).toBe(false);
      }
      // A 6-digit code could occur inside a longer number (a timestamp): only a standalone one counts.
      expect(new RegExp(`(?<![0-9])${code}(?![0-9])`).test(output), 'login code appears in the logs').toBe(
        false,
      );
    } finally {
      await logged.close();
    }
  });
});
