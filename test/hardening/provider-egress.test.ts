// SSRF policy on provider base URLs outside devnet: refused at registration, and refused again at connect
// time on the address actually dialled (a name that resolves to loopback is caught there).

import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressRefused, guardedLookup, isPrivateAddress } from '../../src/lib/egress.js';
import { encryptSecret } from '../../src/lib/secrets.js';
import { providerInput } from '../catalog/fixtures.js';
import { balanceCredits, execute, fund, outcomesRecorded } from '../execution/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';

let t: TestApp;
let server: ProviderServer;
beforeAll(async () => {
  t = await createTestApp({ env: { SVC_ENV: 'testnet' } });
  server = await startProviderServer();
});
afterAll(async () => {
  await t.close();
  await server.close();
});

describe('provider egress policy (testnet)', () => {
  it('knows the private ranges', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '::1',
      '[::1]',
    ]) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
    for (const a of ['::ffff:127.0.0.1', 'fe80::1', 'fd00::1', '0.0.0.0', '100.64.0.1']) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700::1111']) expect(isPrivateAddress(a), a).toBe(false);
  });

  it('refuses loopback, private and link-local base URLs at registration', async () => {
    for (const base of [
      'http://127.0.0.1:8080',
      'http://169.254.169.254/latest',
      'http://10.0.0.5',
      'http://[::1]:9000',
      'http://localhost:3000',
    ]) {
      const res = await t.admin('POST', '/v1/admin/providers', providerInput({ base_url: base }));
      expect(res.statusCode, base).toBe(400);
      expect(res.json().error.code).toBe('SVC-VAL-001');
      expect(res.json().error.details.errors[0].path).toBe('base_url');
    }
  });

  it('accepts the same base URL with SVC_ALLOW_PRIVATE_PROVIDERS=1', async () => {
    const allowed = await createTestApp({ env: { SVC_ENV: 'testnet', SVC_ALLOW_PRIVATE_PROVIDERS: '1' } });
    try {
      const res = await allowed.admin('POST', '/v1/admin/providers', providerInput({ base_url: server.url }));
      expect(res.statusCode).toBe(201);
    } finally {
      await allowed.close();
    }
  });

  it('checks the resolved address of a name at connect time', async () => {
    const err = await new Promise<unknown>((resolve) => guardedLookup('localhost', {}, (e) => resolve(e)));
    expect(err).toBeInstanceOf(EgressRefused);
  });

  it('refuses at connect time a stored loopback base URL (registered before the policy), and refunds', async () => {
    const id = `legacy-${Date.now()}`;
    await t.deps.db.orm.execute(
      sql`INSERT INTO providers (id, name, description, category, base_url, secret_ciphertext)
          VALUES (${id}, 'Legacy', 'x', 'utility', ${server.url},
                  ${encryptSecret(t.deps.secrets.encryptionKey, 'psk_x')})`,
    );
    await t.deps.db.orm.execute(
      sql`INSERT INTO endpoints (provider_id, slug, method, path, parameters, price_credits, timeout_ms)
          VALUES (${id}, 'echo', 'POST', '/echo', '{}'::jsonb, 10000, 2000)`,
    );
    const acc = await t.createAccount();
    await fund(t, acc.accountId, '1');
    const res = await execute(t, acc.apiKey, id, 'echo', {});
    expect(res.statusCode, res.body).toBe(502);
    expect(res.json().error.code).toBe('SVC-EXE-004');
    expect(server.hits('/echo')).toBe(0);
    await outcomesRecorded(t);
    expect(await balanceCredits(t, acc.accountId)).toBe(1_000_000n);
  });
});
