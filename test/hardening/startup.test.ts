// Start-up and routing errors a person reads: one-line messages naming what to change, 405 with Allow,
// and a data dir that a second process cannot open behind the first one's back.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, startupErrorMessage } from '../../src/config.js';
import { DataDirLocked, lockDataDir } from '../../src/db/index.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-startup-'));
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('start-up errors', () => {
  it('names LOG_LEVEL when it is not a level', () => {
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(ConfigError);
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL must be one of/);
    expect(loadConfig({ LOG_LEVEL: 'WARN' }).logLevel).toBe('warn');
  });

  it('explains a port in use in one line', async () => {
    const holder = net.createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    const { port } = holder.address() as AddressInfo;
    const second = net.createServer();
    const err = await new Promise<unknown>((resolve) => {
      second.once('error', resolve);
      second.listen(port, '127.0.0.1');
    });
    holder.close();
    const line = startupErrorMessage(err, { host: '127.0.0.1', port });
    expect(line).toBe(
      `Cannot start: 127.0.0.1:${port} is already in use (set PORT to a free port or stop the other process)`,
    );
  });
});

describe('data dir lock', () => {
  it('refuses a second opener, naming the holder, until the first releases it', () => {
    // openPglite takes this lock before PGlite touches the directory (src/db/index.ts).
    const dataDir = path.join(dir, 'pglite');
    const release = lockDataDir(dataDir);
    expect(() => lockDataDir(dataDir)).toThrow(new RegExp(`in use by process ${process.pid}`));
    release();
    lockDataDir(dataDir)();
  });

  it('names another live process, and takes over the lock of a dead one', async () => {
    const dataDir = path.join(dir, 'other');
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    try {
      writeFileSync(`${dataDir}.lock`, `${child.pid}\n`);
      expect(() => lockDataDir(dataDir)).toThrow(DataDirLocked);
      expect(() => lockDataDir(dataDir)).toThrow(new RegExp(`process ${child.pid}`));
    } finally {
      child.kill('SIGKILL');
    }
    await new Promise((r) => child.once('exit', r));
    const release = lockDataDir(dataDir);
    release();
  });
});

describe('wrong method', () => {
  it('answers 405 SVC-VAL-008 with Allow for a known path, 404 for an unknown one', async () => {
    const res = await t.inject({ method: 'GET', url: '/v1/admin/accounts' });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.json().error.code).toBe('SVC-VAL-008');
    const withId = await t.inject({ method: 'PUT', url: '/v1/keys/key_abc' });
    expect(withId.statusCode).toBe(405);
    expect(withId.headers.allow).toContain('DELETE');
    expect((await t.inject({ method: 'GET', url: '/v1/nope' })).statusCode).toBe(404);
  });
});
