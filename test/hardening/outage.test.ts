// A database outage answers 503 SVC-SYS-002 with Retry-After (never 500), and a provider failure whose
// refund cannot be written still answers the provider's 502 — the sweeper refunds it later.
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { isDatabaseUnavailable, openDatabase } from '../../src/db/index.js';
import { execute, fund, registerProvider } from '../execution/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp | undefined;
const servers: http.Server[] = [];
afterEach(async () => {
  await t?.close().catch(() => {});
  t = undefined;
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

describe('database outage', () => {
  it('classifies a refused PostgreSQL connection as unavailable', async () => {
    const db = await openDatabase({
      url: `postgres://postgres@127.0.0.1:${await closedPort()}/x`,
      poolSize: 1,
    });
    const err = await db.orm.execute('SELECT 1' as never).catch((e: unknown) => e);
    expect(isDatabaseUnavailable(err)).toBe(true);
    await db.close();
  });

  it('answers 503 SVC-SYS-002 with Retry-After when the database is gone', async () => {
    t = await createTestApp();
    const acc = await t.createAccount();
    await t.deps.db.close();
    for (const req of [
      { method: 'GET' as const, url: '/v1/keys', headers: { 'x-svc-api-key': acc.apiKey } },
      { method: 'GET' as const, url: '/v1/providers' },
      { method: 'POST' as const, url: `/v1/admin/accounts/${acc.accountId}/credits`, admin: true },
    ]) {
      const res = req.admin
        ? await t.admin('POST', req.url, { amount_usdc: '1', description: 'x' })
        : await t.inject(req);
      expect(res.statusCode, `${req.method} ${req.url}: ${res.body}`).toBe(503);
      expect(res.json().error.code).toBe('SVC-SYS-002');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    const ready = await t.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(503);
  });

  it("answers the provider's 502 when the refund cannot be written, marked pending", async () => {
    const app = await createTestApp();
    t = app;
    // A provider that fails, after taking the database away from the service.
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', async () => {
        await app.deps.db.close();
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"boom"}');
      });
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const { providerId } = await registerProvider(app, `http://127.0.0.1:${port}`, [{ slug: 'fail' }]);
    const acc = await app.createAccount();
    await fund(app, acc.accountId, '1');
    const res = await execute(app, acc.apiKey, providerId, 'fail', {});
    expect(res.statusCode, res.body).toBe(502);
    expect(res.json().error.code).toBe('SVC-EXE-004');
    expect(res.json().error.details.refund).toBe('pending');
  });
});
