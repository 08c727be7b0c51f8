// One access-log line per request, with what an operator searches by, and never the credential or the
// query string; and the readable form devnet prints on a terminal.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatLogLine } from '../../src/http/pretty-log.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

const lines: Array<Record<string, unknown>> = [];
const stream = new Writable({
  write(chunk, _enc, done) {
    for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
    done();
  },
});

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ logger: { level: 'info', stream } });
});
afterAll(async () => {
  await t.close().catch(() => {});
});

describe('access log', () => {
  it('writes one line per request: method, route, status, duration, request id, account', async () => {
    const acc = await t.createAccount();
    lines.length = 0;
    const res = await t.inject({
      method: 'GET',
      url: '/v1/wallet/balance?secret=s3cr3t',
      headers: { 'x-svc-api-key': acc.apiKey },
    });
    expect(res.statusCode).toBe(200);
    const requestId = res.headers['x-request-id'];
    const about = lines.filter((l) => l.reqId === requestId);
    expect(about).toHaveLength(1);
    expect(about[0]).toMatchObject({
      level: 30,
      msg: 'request',
      method: 'GET',
      route: '/v1/wallet/balance',
      status: 200,
      account: acc.accountId,
    });
    expect(typeof about[0]?.ms).toBe('number');
    const all = JSON.stringify(lines);
    expect(all).not.toContain(acc.apiKey);
    expect(all).not.toContain('s3cr3t');

    // An unknown route is logged with "-" as its route; an anonymous caller with no account.
    lines.length = 0;
    const missing = await t.inject({ method: 'GET', url: '/no/such/route' });
    expect(missing.statusCode).toBe(404);
    expect(lines.filter((l) => l.msg === 'request')).toEqual([
      expect.objectContaining({ method: 'GET', route: '-', status: 404 }),
    ]);
    expect(lines.find((l) => l.msg === 'request')).not.toHaveProperty('account');
  });

  it('is silent at warn', async () => {
    const quiet: string[] = [];
    const q = await createTestApp({
      logger: {
        level: 'warn',
        stream: new Writable({
          write(chunk, _enc, done) {
            quiet.push(String(chunk));
            done();
          },
        }),
      },
    });
    try {
      expect((await q.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
      expect(quiet).toEqual([]);
    } finally {
      await q.close();
    }
  });

  it('reads as one line per request on a terminal', () => {
    const json = JSON.stringify({
      level: 30,
      time: Date.UTC(2026, 0, 2, 3, 4, 5, 678),
      reqId: 'req_1',
      method: 'POST',
      route: '/v1/execute/:providerId/:endpointSlug',
      status: 200,
      ms: 3.1,
      account: 'acc_1',
      msg: 'request',
    });
    expect(formatLogLine(json, false)).toBe(
      '03:04:05.678 INFO  POST /v1/execute/:providerId/:endpointSlug 200 3.1 ms acc_1 req_1\n',
    );
    const err = JSON.stringify({ level: 50, time: 0, msg: 'boom', err: { stack: 'Error: boom\n    at x' } });
    expect(formatLogLine(err, false)).toBe('00:00:00.000 ERROR boom\n  Error: boom\n      at x\n');
    expect(formatLogLine('not json', false)).toBe('not json\n');
  });
});
