import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSampleProviders } from '../../samples/index.js';
import { one, rows } from '../../src/db/index.js';
import { providerSecret } from '../../src/modules/catalog/service.js';
import { signProviderRequest } from '../../src/modules/catalog/signature.js';
import { startSideServices } from '../../src/side-services.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let samples: Awaited<ReturnType<typeof startSampleProviders>>;
const secrets = new Map<string, string>();

beforeAll(async () => {
  t = await createTestApp({ env: { SVC_RATE_LIMIT_MULTIPLIER: '100' } });
  samples = await startSampleProviders(t.deps);
  for (const { providerId } of samples.providers)
    secrets.set(providerId, await providerSecret(t.deps, providerId));
});
afterAll(async () => {
  await samples?.stop();
  await t.close();
});

const now = () => Math.floor(Date.now() / 1000);

interface CallOptions {
  secret?: string | null;
  timestamp?: number;
  /** Sign this payload instead of the one sent. */
  signedPayload?: string;
}

/** Calls a sample endpoint the way the execution module does: signed body (POST) or query (GET). */
async function call(
  providerId: string,
  slug: string,
  input: Record<string, unknown>,
  opts: CallOptions = {},
) {
  const base = samples.app.baseUrlOf(providerId);
  const get = slug === 'uuid' || slug === 'checksum-address';
  const query = get
    ? new URLSearchParams(Object.entries(input).map(([k, v]) => [k, String(v)])).toString()
    : '';
  const body = get ? undefined : JSON.stringify(input);
  const timestamp = opts.timestamp ?? now();
  const secret = opts.secret === undefined ? secrets.get(providerId) : opts.secret;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (secret !== null && secret !== undefined) {
    headers['x-svc-timestamp'] = String(timestamp);
    headers['x-svc-provider-signature'] = signProviderRequest(
      secret,
      timestamp,
      opts.signedPayload ?? body ?? query,
    );
  }
  const res = await fetch(`${base}/${slug}${query ? `?${query}` : ''}`, {
    method: get ? 'GET' : 'POST',
    headers,
    ...(body === undefined ? {} : { body }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('bundled sample providers', () => {
  it('registers 12 endpoints over the five categories, visible in the public API without base_url', async () => {
    expect(samples.providers.every((p) => p.created)).toBe(true);
    const res = await t.inject({ method: 'GET', url: '/v1/providers?limit=100' });
    const data = res.json().data as { provider_id: string; category: string; endpoints: unknown[] }[];
    expect(new Set(data.map((p) => p.category))).toEqual(
      new Set(['utility', 'ai_ml', 'data_intelligence', 'blockchain', 'communication']),
    );
    expect(data.reduce((n, p) => n + p.endpoints.length, 0)).toBe(12);
    expect(res.body).not.toContain('127.0.0.1');
    const methods = await rows<{ method: string }>(t.deps.db.orm, sql`SELECT DISTINCT method FROM endpoints`);
    expect(methods.map((m) => m.method).sort()).toEqual(['GET', 'POST']);
  });

  it('answers correctly signed calls', async () => {
    const sha = await call('sample-toolbox', 'hash', { text: 'abc' });
    expect(sha).toEqual({
      status: 200,
      body: {
        algorithm: 'sha256',
        encoding: 'hex',
        digest: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      },
    });
    const md5 = await call('sample-toolbox', 'hash', { text: 'abc', algorithm: 'md5', encoding: 'base64' });
    expect(md5.body.digest).toBe('kAFQmDzST7DWlj99KOF/cg==');

    const uuids = await call('sample-toolbox', 'uuid', { version: 7, count: 3 });
    expect(uuids.status).toBe(200);
    const list = uuids.body.uuids as string[];
    expect(list).toHaveLength(3);
    for (const u of list)
      expect(u).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const v4 = await call('sample-toolbox', 'uuid', {});
    expect((v4.body.uuids as string[])[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4/);

    expect(
      (await call('sample-toolbox', 'convert-units', { value: 26.2, from: 'mi', to: 'km' })).body,
    ).toMatchObject({
      result: 42.1648128,
      dimension: 'length',
    });
    expect(
      (await call('sample-toolbox', 'convert-units', { value: 212, from: 'F', to: 'celsius' })).body.result,
    ).toBe(100);
    const mismatch = await call('sample-toolbox', 'convert-units', { value: 1, from: 'kg', to: 'km' });
    expect(mismatch.status).toBe(400);

    // 09:00 in New York during daylight saving time is 13:00 UTC and 22:00 in Tokyo.
    const tz = await call('sample-toolbox', 'convert-timezone', {
      datetime: '2026-07-01T09:00',
      from_timezone: 'America/New_York',
      to_timezone: 'Asia/Tokyo',
    });
    expect(tz.body).toMatchObject({
      utc: '2026-07-01T13:00:00.000Z',
      local: '2026-07-01T22:00:00',
      offset: '+09:00',
    });
    const india = await call('sample-toolbox', 'convert-timezone', {
      datetime: '2026-01-15T12:00:00Z',
      to_timezone: 'Asia/Kolkata',
    });
    expect(india.body).toMatchObject({ local: '2026-01-15T17:30:00', offset: '+05:30' });
    expect(
      (await call('sample-toolbox', 'convert-timezone', { datetime: '2026-01-01', to_timezone: 'Mars/Base' }))
        .status,
    ).toBe(400);

    const happy = await call('sample-textlab', 'sentiment', { text: 'Great service, I absolutely love it!' });
    expect(happy.body.label).toBe('positive');
    const sad = await call('sample-textlab', 'sentiment', {
      text: 'The app is not good; it crashed twice. Terrible.',
    });
    expect(sad.body.label).toBe('negative');

    const stats = await call('sample-textlab', 'text-stats', { text: 'One fish. Two fish.\n\nRed fish!' });
    expect(stats.body).toMatchObject({ words: 6, sentences: 3, paragraphs: 2 });

    const csv = await call('sample-dataworks', 'json-to-csv', {
      rows: [
        { name: 'Ada', note: 'says "hi", twice' },
        { name: 'Bob', age: 41 },
      ],
    });
    expect(csv.body).toEqual({
      csv: 'name,note,age\r\nAda,"says ""hi"", twice",\r\nBob,,41\r\n',
      columns: ['name', 'note', 'age'],
      row_count: 2,
    });
    const back = await call('sample-dataworks', 'csv-to-json', { csv: csv.body.csv as string });
    expect(back.body.rows).toEqual([
      { name: 'Ada', note: 'says "hi", twice', age: null },
      { name: 'Bob', note: null, age: 41 },
    ]);

    const address = await call('sample-chainkit', 'checksum-address', {
      address: '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359',
    });
    expect(address.body).toMatchObject({
      valid: true,
      checksum_address: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
      is_checksummed: false,
    });
    expect((await call('sample-chainkit', 'checksum-address', { address: '0x123' })).body.valid).toBe(false);
    const selector = await call('sample-chainkit', 'keccak256', { data: 'transfer(address,uint256)' });
    expect(selector.body.selector).toBe('0xa9059cbb');
    const empty = await call('sample-chainkit', 'keccak256', { data: '0x', encoding: 'hex' });
    expect(empty.body.hash).toBe('0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470');

    const typo = await call('sample-messaging', 'validate-email', { email: 'Support@gmial.com' });
    expect(typo.body).toMatchObject({ valid: true, is_role_account: true, suggestion: 'Support@gmail.com' });
    expect((await call('sample-messaging', 'validate-email', { email: 'no-at-sign' })).body.valid).toBe(
      false,
    );
    const sms = await call('sample-messaging', 'sms-segments', { text: 'a'.repeat(161) });
    expect(sms.body).toMatchObject({ encoding: 'GSM-7', segments: 2, per_segment: 153 });
    const emoji = await call('sample-messaging', 'sms-segments', { text: 'Hi 👋' });
    expect(emoji.body).toMatchObject({ encoding: 'UCS-2', segments: 1, non_gsm_characters: ['👋'] });
  });

  it('refuses bad input with 400 after a valid signature', async () => {
    const missing = await call('sample-toolbox', 'hash', {});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: { code: 'invalid_input', message: '"text" is required' } });
    expect((await call('sample-toolbox', 'uuid', { count: 1000 })).status).toBe(400);
  });

  it('answers 401 to a missing, wrong, stale or mismatched signature', async () => {
    const expect401 = (res: { status: number; body: Record<string, unknown> }) => {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: { code: 'invalid_signature', message: expect.any(String) } });
    };
    expect401(await call('sample-toolbox', 'hash', { text: 'x' }, { secret: null }));
    expect401(await call('sample-toolbox', 'hash', { text: 'x' }, { secret: 'svc_ps_wrong' }));
    // Another provider's secret does not open this one.
    expect401(await call('sample-toolbox', 'hash', { text: 'x' }, { secret: secrets.get('sample-textlab') }));
    expect401(await call('sample-toolbox', 'hash', { text: 'x' }, { timestamp: now() - 600 }));
    expect401(await call('sample-toolbox', 'hash', { text: 'x' }, { signedPayload: '{"text":"y"}' }));
    // GET parameters are covered by the signature.
    expect401(await call('sample-toolbox', 'uuid', { count: 5 }, { signedPayload: 'count=1' }));
  });

  it('re-registers idempotently on the next start: same providers, same secret, new base_url', async () => {
    const changed: string[] = [];
    t.deps.events.on('catalog.changed', ({ providerId }) => changed.push(providerId));
    const before = await rows<{
      id: string;
      secret_ciphertext: string;
      base_url: string;
      created_at: string;
    }>(t.deps.db.orm, sql`SELECT id, secret_ciphertext, base_url, created_at FROM providers ORDER BY id`);
    const second = await startSampleProviders(t.deps);
    try {
      expect(second.providers.map((p) => p.created)).toEqual([false, false, false, false, false]);
      const after = await rows<{
        id: string;
        secret_ciphertext: string;
        base_url: string;
        created_at: string;
      }>(t.deps.db.orm, sql`SELECT id, secret_ciphertext, base_url, created_at FROM providers ORDER BY id`);
      expect(after.map((p) => p.id)).toEqual(before.map((p) => p.id));
      expect(after.map((p) => p.secret_ciphertext)).toEqual(before.map((p) => p.secret_ciphertext));
      expect(after.map((p) => p.created_at)).toEqual(before.map((p) => p.created_at));
      expect(after.map((p) => p.base_url)).toEqual(after.map((p) => second.app.baseUrlOf(p.id)));
      expect(second.app.url).not.toBe(samples.app.url);
      const count = await one<{ n: bigint }>(t.deps.db.orm, sql`SELECT count(*)::int8 AS n FROM endpoints`);
      expect(count?.n).toBe(12n);
      expect(changed.sort()).toEqual(before.map((p) => p.id));
      // The new app verifies with the kept secret.
      const res = await fetch(`${second.app.baseUrlOf('sample-toolbox')}/uuid`, {
        headers: {
          'x-svc-timestamp': String(now()),
          'x-svc-provider-signature': signProviderRequest(secrets.get('sample-toolbox') ?? '', now(), ''),
        },
      });
      expect(res.status).toBe(200);
    } finally {
      await second.stop();
    }
  });

  it('are started by the side services only when SVC_SAMPLE_PROVIDERS is on', async () => {
    const changed: string[] = [];
    const listener = ({ providerId }: { providerId: string }) => changed.push(providerId);
    t.deps.events.on('catalog.changed', listener);
    try {
      const off = await startSideServices(t.deps, t.app);
      await off.stop();
      expect(changed).toEqual([]);
      const on = await startSideServices(
        { ...t.deps, config: { ...t.deps.config, sampleProviders: true } },
        t.app,
      );
      try {
        expect(changed).toHaveLength(5);
        const row = await one<{ base_url: string }>(
          t.deps.db.orm,
          sql`SELECT base_url FROM providers WHERE id = 'sample-toolbox'`,
        );
        const res = await fetch(`${row?.base_url}/uuid`, {
          headers: {
            'x-svc-timestamp': String(now()),
            'x-svc-provider-signature': signProviderRequest(secrets.get('sample-toolbox') ?? '', now(), ''),
          },
        });
        expect(res.status).toBe(200);
      } finally {
        await on.stop();
      }
    } finally {
      t.deps.events.off('catalog.changed', listener);
    }
  });
});
