// The `svc` CLI as a user runs it: a real process (bin/svc.mjs) against the real service on a port.
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { CLI_TEST_TIMEOUT, runSvc } from './run.js';

const credentialsFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'svc-cli-')), 'credentials.json');

const svc = (args: string[], env: Record<string, string> = {}) =>
  runSvc(args, { SVC_CREDENTIALS_FILE: credentialsFile, ...env });

let t: TestApp;
let url: string;
let apiKey: string;

beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const account = await t.createAccount('cli@example.com');
  apiKey = account.apiKey;
  await t.admin('POST', `/v1/admin/accounts/${account.accountId}/credits`, {
    amount_usdc: '2',
    description: 'cli',
  });
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe('svc CLI', () => {
  it(
    'prints help and exits 0 for --help on a command, never running it',
    async () => {
      const start = await svc(['start', '--help']);
      expect(start.code).toBe(0);
      expect(start.stdout).toContain('usage: svc start');
      const balance = await svc(['balance', '--help']);
      expect(balance.code).toBe(0);
      expect(balance.stdout).toContain('usage: svc balance');
    },
    CLI_TEST_TIMEOUT,
  );

  it(
    'says an unknown command is unknown and exits 2',
    async () => {
      const res = await svc(['admin', 'frobnicate']);
      expect(res.code).toBe(2);
      expect(res.stderr).toContain('unknown command: admin frobnicate');
      expect((await svc(['frobnicate'])).code).toBe(2);
      expect((await svc(['keys', 'create'], { SVC_URL: url })).code).toBe(2);
    },
    CLI_TEST_TIMEOUT,
  );

  it(
    'logs in with an API key, then shows balance, keys and the usage CSV; --json is machine-readable',
    async () => {
      expect((await svc(['balance', '--url', url])).code).toBe(3);
      const login = await svc(['login', '--api-key', apiKey, '--url', url, '--json']);
      expect(login.code).toBe(0);
      expect(JSON.parse(login.stdout)).toMatchObject({ tier: 'authenticated' });

      const balance = await svc(['balance', '--json'], { SVC_URL: url });
      expect(balance.code).toBe(0);
      expect(JSON.parse(balance.stdout)).toMatchObject({ balance_usdc: '2' });
      const keys = await svc(['keys', 'list'], { SVC_URL: url });
      expect(keys.stdout).toContain('svc_sk_');
      const csv = await svc(['usage', '--csv'], { SVC_URL: url });
      expect(csv.stdout.split('\n')[0]).toMatch(/^timestamp,call_id,provider_id/);
    },
    CLI_TEST_TIMEOUT,
  );

  it(
    'creates an agent key with a policy, shows its policy and usage, changes and removes the policy',
    async () => {
      const as = { SVC_URL: url, SVC_API_KEY: apiKey };
      const created = await svc(
        [
          'keys',
          'create',
          '--name',
          'research-agent',
          '--daily-limit',
          '5',
          '--total-limit',
          '50',
          '--per-call-limit',
          '0.25',
          '--providers',
          'weather-api,geo-lookup',
          '--expires-at',
          '2099-12-31T23:59:59Z',
          '--json',
        ],
        as,
      );
      expect(created.code, created.stderr).toBe(0);
      const key = JSON.parse(created.stdout);
      expect(key.key).toMatch(/^svc_sk_/);
      expect(key.policy).toEqual({
        daily_limit_usdc: '5.000000',
        total_limit_usdc: '50.000000',
        per_call_max_usdc: '0.250000',
        allowed_providers: ['weather-api', 'geo-lookup'],
        allowed_categories: null,
        expires_at: '2099-12-31T23:59:59.000Z',
      });

      const listed = await svc(['keys', 'list'], as);
      const line = listed.stdout.split('\n').find((l) => l.startsWith(key.id));
      expect(line).toContain('today 0.000000/5.000000  total 0.000000/50.000000 USDC');
      expect(line).toContain('per call <= 0.250000  providers weather-api,geo-lookup  expires 2099-12-31');

      // The agent key cannot lift its own leash; the owner's key can change it.
      const self = await svc(['keys', 'policy', key.id, '--none', '--api-key', key.key], { SVC_URL: url });
      expect(self.code).toBe(3);
      expect(self.stderr).toContain('SVC-AUTH-005');
      const changed = await svc(['keys', 'policy', key.id, '--categories', 'utility', '--json'], as);
      expect(JSON.parse(changed.stdout).policy).toMatchObject({
        daily_limit_usdc: null,
        allowed_categories: ['utility'],
      });
      const removed = await svc(['keys', 'policy', key.id, '--none', '--json'], as);
      expect(JSON.parse(removed.stdout).policy).toBeNull();
      expect((await svc(['keys', 'policy', key.id], as)).code).toBe(2);
    },
    CLI_TEST_TIMEOUT,
  );

  it(
    'reports service errors with their code and exit code, and an unreachable service with 5',
    async () => {
      const call = await svc(['call', '--provider', 'nope', '--endpoint', 'x', '--json'], { SVC_URL: url });
      expect(call.code).toBe(1);
      expect(JSON.parse(call.stderr)).toMatchObject({ error: { code: 'SVC-EXE-001', status: 404 } });
      const down = await svc(['balance', '--url', 'http://127.0.0.1:9', '--api-key', apiKey]);
      expect(down.code).toBe(5);
    },
    CLI_TEST_TIMEOUT,
  );
});
