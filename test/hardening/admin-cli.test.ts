// `svc admin …` while the service runs: the service holds the embedded database (locked), so the CLI
// goes through the service's admin API (SVC_URL + the admin token); with no service answering it opens
// the database itself. A command that has no admin API says to stop the service.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-admin-cli-'));
const TOKEN = 'admin-cli-test-token-0123456789abcdef';
let port = 0;
let service: ChildProcess | undefined;
let serviceErrors = '';

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port: p } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return p;
}

const env = () => ({
  ...process.env,
  DATABASE_URL: '',
  REDIS_URL: '',
  SVC_ENV: 'devnet',
  SVC_DATA_DIR: dataDir,
  SVC_ADMIN_TOKEN: TOKEN,
  SVC_SAMPLE_PROVIDERS: 'off',
  // No chain: the admin commands do not need one (and anvil is started only through test helpers).
  SVC_CHAIN_RPC_URL: 'http://127.0.0.1:9',
  SVC_DEPOSIT_WATCH: 'off',
  LOG_LEVEL: 'silent',
  PORT: String(port),
  SVC_URL: `http://127.0.0.1:${port}`,
});

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli.ts', 'admin', ...args],
      { cwd: ROOT, env: env(), timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

async function waitHealthy(url: string) {
  for (let i = 0; i < 480; i++) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`service did not start: ${serviceErrors}`);
}

beforeAll(async () => {
  port = await freePort();
  service = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env: env(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  service.stderr?.on('data', (c: Buffer) => {
    serviceErrors += c.toString();
  });
  await waitHealthy(`http://127.0.0.1:${port}`);
}, 150_000);
afterAll(async () => {
  if (service?.exitCode === null) {
    service.kill('SIGKILL');
    await new Promise((r) => service?.once('exit', r));
  }
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(`${dataDir}/pglite.lock`, { force: true });
});

it('talks to the running service, then to the database once the service is gone', async () => {
  const url = `http://127.0.0.1:${port}`;
  const created = await cli('create-account', '--email', 'cli-while-running@example.com');
  expect(created.code, created.stderr).toBe(0);
  const account = JSON.parse(created.stdout);
  const apiKey: string = account.api_key.key;
  const accountId: string = account.account_id;

  const credit = await cli('credit', '--account', accountId, '--amount-usdc', '2.5', '--description', 'cli');
  expect(credit.code, credit.stderr).toBe(0);
  // The key the CLI printed works on the running service, and the credit landed there.
  const balance = await fetch(`${url}/v1/wallet/balance`, { headers: { 'x-svc-api-key': apiKey } });
  expect(balance.status).toBe(200);
  expect(JSON.stringify(await balance.json())).toContain('2.5');

  // The review queue (empty in devnet: listings go live at once); an unknown listing is the API's 404.
  const queue = await cli('listings');
  expect(queue.code, queue.stderr).toBe(0);
  expect(JSON.parse(queue.stdout)).toEqual([]);
  const unknown = await cli('approve-listing', '--provider', 'no-such-listing');
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain('SVC-EXE-001');

  const refused = await cli('mail-status');
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/needs the database.*stop the service first/);

  const bad = await cli('credit', '--account', accountId, '--amount-usdc', 'abc', '--description', 'x');
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain('SVC-VAL-001');

  service?.kill('SIGTERM');
  await new Promise((r) => service?.once('exit', r));
  // No service answers: the CLI opens the database, where the account written over the API is.
  const offline = await cli(
    'credit',
    '--account',
    accountId,
    '--amount-usdc',
    '1',
    '--description',
    'offline',
  );
  expect(offline.code, offline.stderr).toBe(0);
  expect(JSON.parse(offline.stdout).balanceAfter).toBe('3500000');
  const offlineQueue = await cli('listings');
  expect(offlineQueue.code, offlineQueue.stderr).toBe(0);
  expect(JSON.parse(offlineQueue.stdout)).toEqual([]);
}, 300_000);
