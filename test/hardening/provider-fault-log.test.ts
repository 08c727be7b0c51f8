// A refunded provider 5xx is the provider's fault: one warn line with the call id, no stack, no error line.
import { Writable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { execute, fund, registerProvider } from '../execution/fixtures.js';
import { createTestApp } from '../helpers/app.js';
import { startProviderServer } from '../helpers/providers.js';

const lines: Array<Record<string, unknown>> = [];
const stream = new Writable({
  write(chunk, _enc, done) {
    for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
    done();
  },
});

const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const c of cleanup) await c();
});

describe('provider faults in the logs', () => {
  it('are warn lines with the call id and no stack', async () => {
    const t = await createTestApp({ logger: { level: 'info', stream } });
    const server = await startProviderServer();
    cleanup.push(
      () => t.close(),
      () => server.close(),
    );
    const { providerId } = await registerProvider(t, server.url, [{ slug: 'fail', path: '/fail' }]);
    const acc = await t.createAccount();
    await fund(t, acc.accountId, '1');
    const res = await execute(t, acc.apiKey, providerId, 'fail', {});
    expect(res.statusCode).toBe(502);
    const callId = res.json().error.details.call_id;
    const about = lines.filter((l) => JSON.stringify(l).includes(callId));
    expect(about.length).toBeGreaterThan(0);
    expect(about.filter((l) => Number(l.level) >= 50)).toEqual([]);
    const warn = about.find((l) => l.level === 40);
    expect(warn?.msg).toBe('provider fault');
    expect(JSON.stringify(about)).not.toContain('"stack"');
  });
});
