// `svc deposit` as a user runs it (a real process) against the service on a port and a real anvil: it pays
// into the service named by SVC_URL (not this machine's SVC_PUBLIC_URL), and with --json stdout is the
// deposit alone, with no progress indicator (that is for terminals only; startProgress checks it).
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProgress } from '../../src/lib/progress.js';
import { balanceCredits } from '../execution/fixtures.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { CLI_TEST_TIMEOUT, runSvc } from './run.js';

let chain: TestChain;
let t: TestApp;
let url: string;

beforeAll(async () => {
  chain = await startTestChain();
  t = await createTestApp({ env: { ...(await chain.serviceEnv()), SVC_RATE_LIMIT_MULTIPLIER: '1000' } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}, 180_000);
afterAll(async () => {
  await t?.close();
  await chain?.stop();
});

describe('svc deposit', () => {
  it(
    'deposits into the service of SVC_URL; --json prints only the deposit',
    async () => {
      const account = await t.createAccount();
      const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-deposit-'));
      const res = await runSvc(
        ['deposit', '--amount', '6', '--wallet-file', path.join(dir, 'wallet.key'), '--json'],
        {
          SVC_URL: url,
          SVC_API_KEY: account.apiKey,
          SVC_PUBLIC_URL: 'http://127.0.0.1:9', // nothing listens there: the deposit must not go to it
          SVC_DATA_DIR: dir,
        },
        150_000,
      );
      expect(res.code, res.stderr).toBe(0);
      expect(JSON.parse(res.stdout)).toMatchObject({ status: 'confirmed' });
      expect(res.stderr).not.toContain('waiting for');
      expect(await balanceCredits(t, account.accountId)).toBe(6_000_000n);
    },
    CLI_TEST_TIMEOUT,
  );

  it('shows the progress indicator on a terminal only, and clears its line when done', () => {
    const written: string[] = [];
    const tty = { isTTY: true, write: (s: string) => written.push(s) > 0 };
    startProgress('waiting for confirmations', { stream: tty }).stop();
    expect(written[0]).toMatch(/^\r\| waiting for confirmations \(0 s\)/);
    expect(written.at(-1)).toBe('\r\x1b[K');
    const pipe = { isTTY: false, write: (s: string) => written.push(s) > 0 };
    const before = written.length;
    startProgress('waiting', { stream: pipe }).stop();
    startProgress('waiting', { stream: tty, enabled: false }).stop();
    expect(written).toHaveLength(before);
  });
});
