// The API fuzzer: requests generated from the service's own OpenAPI document (`/docs-json`), each field
// drawn from its JSON schema or replaced by a hostile value (NUL, overlong, lone surrogates, bidi marks,
// huge and negative numbers, deep nesting, malformed percent-encoding), sent to a real app with a funded
// account, a spare account and the admin token. Two properties are checked:
//   1. no answer is a 5xx of ours (a provider's 502/504 on execute and a 503 for the absent chain RPC on
//      the chain routes are not ours and are counted apart);
//   2. money moved only by requests that legitimately move it: the ledger entries written during the run
//      match, type by type, the successful (non-replayed) charging answers the fuzzer saw, and the ledger
//      invariants hold.
// Used by `npm run fuzz` (bench/fuzz.ts, long runs) and test/hardening/fuzz.test.ts (a short seeded run).
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { outcomesWritten } from '../src/modules/execution/index.js';
import { checkLedgerInvariants } from '../src/modules/ledger/index.js';
import type { TestApp } from '../test/helpers/app.js';
import { TEST_ADMIN_TOKEN } from '../test/helpers/app.js';
import { startProviderServer } from '../test/helpers/providers.js';

type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  items?: JsonSchema;
  maxItems?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
};

interface Operation {
  method: string;
  path: string;
  params: { in: string; name: string; required?: boolean; schema: JsonSchema }[];
  body: JsonSchema | undefined;
}

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
  route: string;
}

export interface FuzzResult {
  sent: number;
  byStatus: Record<string, number>;
  /** Answers by route and status ("POST /v1/keys 400" → n). */
  byRoute: Record<string, number>;
  /** Answers ≥ 500 that are ours (each with the request that caused it, truncated). */
  failures: { request: string; status: number; body: string }[];
  /** 5xx that are not ours: a provider fault on execute, the chain RPC absent on chain routes. */
  notOurs: number;
  /** Requests the HTTP client itself refused to send (e.g. a NUL in a header value). */
  unsendable: number;
  /** Money check: ledger entries of the run by type vs. the successful charging answers seen. */
  money: { entries: Record<string, number>; expected: Record<string, number>; violations: string[] };
}

const HOSTILE_STRINGS = [
  '\u0000',
  'a\u0000b',
  'x'.repeat(70_000),
  '\uD800',
  'a\uDFFFb',
  '\uFFFE\uFFFF',
  '\u202Eevil',
  '\u200B',
  '😀'.repeat(300),
  'ǅ̸̢̛',
  '../../etc/passwd',
  "' OR 1=1 --",
  '%00',
  '',
  ' ',
  '-1',
  '-0.000001',
  '0',
  '1e309',
  'NaN',
  '99999999999999999999999999999',
  '0x10',
  '1.0000001',
  '<script>alert(1)</script>',
  '$' + '{jndi:ldap://x}',
  '__proto__',
];

const HOSTILE_NUMBERS = [
  -1,
  -0,
  0,
  -1e21,
  1e308,
  Number.MAX_SAFE_INTEGER + 2,
  2 ** 63,
  -(2 ** 63),
  0.1 + 0.2,
  1e-7,
];

function deep(depth: number, kind: 'array' | 'object'): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = kind === 'array' ? [v] : { a: v };
  return v;
}

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...HOSTILE_STRINGS),
  fc.constantFrom(...HOSTILE_NUMBERS),
  fc.constantFrom(
    null,
    true,
    false,
    [],
    {},
    { __proto__: { admin: true } },
    { constructor: { prototype: 1 } },
  ),
  fc.constantFrom(deep(200, 'array'), deep(200, 'object'), deep(3000, 'array')),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Values the fuzzer knows exist (ids, a coupon code), so requests get past "not found" into handlers. */
export type Pools = Record<string, string[]>;

function schemaArb(
  schema: JsonSchema | undefined,
  pools: Pools,
  name: string,
  depth = 0,
  knownWeight = 4,
): fc.Arbitrary<unknown> {
  const exact = schemaArbExact(schema, pools, name, depth);
  const known = pools[name];
  return fc.oneof(
    { weight: 6, arbitrary: exact },
    { weight: 2, arbitrary: hostileValue },
    ...(known?.length
      ? [{ weight: knownWeight, arbitrary: fc.constantFrom(...known) as fc.Arbitrary<unknown> }]
      : []),
  );
}

function schemaArbExact(
  schema: JsonSchema | undefined,
  pools: Pools,
  name: string,
  depth: number,
): fc.Arbitrary<unknown> {
  if (!schema || depth > 6) return fc.jsonValue({ maxDepth: 2 });
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alts = schema.anyOf ?? schema.oneOf;
  if (alts?.length) return fc.oneof(...alts.map((s) => schemaArbExact(s, pools, name, depth + 1)));
  if (schema.allOf?.length) return schemaArbExact(schema.allOf[0], pools, name, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string': {
      if (schema.pattern) {
        try {
          return fc
            .stringMatching(new RegExp(schema.pattern))
            .map((s) => s.slice(0, schema.maxLength ?? 512));
        } catch {
          // a pattern fast-check cannot generate from: fall through to plain strings
        }
      }
      if (schema.format === 'email') return fc.emailAddress();
      if (schema.format === 'date-time') {
        return fc
          .date({ min: new Date('1900-01-01'), max: new Date('2200-01-01'), noInvalidDate: true })
          .map((d) => d.toISOString());
      }
      if (schema.format === 'uri') return fc.webUrl();
      return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 80) });
    }
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
    case 'number':
      return fc.double({ noNaN: true, min: schema.minimum ?? -1e12, max: schema.maximum ?? 1e12 });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(schemaArb(schema.items, pools, name, depth + 1), {
        maxLength: Math.min(schema.maxItems ?? 4, 4),
      });
    case 'object': {
      const props = schema.properties ?? {};
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, s] of Object.entries(props)) record[k] = schemaArb(s, pools, k, depth + 1);
      return fc.record(record, { requiredKeys: (schema.required ?? []).filter((k) => k in props) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

export function operationsOf(doc: {
  paths: Record<string, Record<string, { parameters?: Operation['params']; requestBody?: unknown }>>;
}): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const body = (op.requestBody as { content?: Record<string, { schema?: JsonSchema }> } | undefined)
        ?.content?.['application/json']?.schema;
      ops.push({ method: method.toUpperCase(), path, params: op.parameters ?? [], body });
    }
  }
  return ops;
}

function encodeSegment(v: unknown): string {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  try {
    return encodeURIComponent(s).slice(0, 4000);
  } catch {
    return '%ED%A0%80'; // a lone surrogate, as a browser would send its UTF-8 replacement bytes
  }
}

/** Bodies the document does not describe: execute takes the endpoint's parameters (prepareTarget's echo). */
const BODY_OF: Record<string, JsonSchema> = {
  'POST /v1/execute/{providerId}/{endpointSlug}': {
    type: 'object',
    properties: { q: { type: 'string', maxLength: 40 }, n: { type: 'integer' } },
  },
};

const RAW_SEGMENTS = ['%', '%zz', '%E0%A4%A', '..', '.', '%2e%2e%2f', 'a%2Fb', '%C0%AF'];

function requestArb(op: Operation, allPools: Pools, credentials: Record<string, Record<string, string>>) {
  // The fuzz provider itself is never changed or deleted, or every later execute would stop at a 404.
  const { providerId: _kept, ...others } = allPools;
  const pools = op.path.startsWith('/v1/admin/providers/') ? others : allPools;
  const pathParams = op.params.filter((p) => p.in === 'path');
  const queryParams = op.params.filter((p) => p.in === 'query');
  const headerParams = op.params.filter((p) => p.in === 'header');
  const pathArb = fc.tuple(
    ...pathParams.map((p) =>
      fc.oneof(
        { weight: 8, arbitrary: schemaArb(p.schema, pools, p.name, 0, 16).map(encodeSegment) },
        { weight: 1, arbitrary: fc.constantFrom(...RAW_SEGMENTS) },
      ),
    ),
  );
  const queryArb = fc.tuple(
    ...queryParams.map((p) => fc.option(schemaArb(p.schema, pools, p.name), { nil: undefined, freq: 3 })),
  );
  const headerArb = fc.tuple(
    ...headerParams.map((p) => fc.option(schemaArb(p.schema, pools, p.name), { nil: undefined, freq: 2 })),
  );
  const bodyArb: fc.Arbitrary<string | undefined> = fc.oneof(
    {
      weight: 8,
      arbitrary: schemaArb(op.body ?? BODY_OF[`${op.method} ${op.path}`], pools, 'body').map((b) =>
        JSON.stringify(b),
      ),
    },
    { weight: 1, arbitrary: fc.constantFrom('{', '{"a":', 'null', '"\\u0000"', '[]', '', '{"a":1,"a":2}') },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
  return fc
    .record({
      path: pathArb,
      query: queryArb,
      extraQuery: fc.option(fc.tuple(fc.string({ maxLength: 8 }), hostileValue), { freq: 5 }),
      headers: headerArb,
      // The funded account's key most of the time (the other credentials reach only the auth checks).
      who: fc.oneof(
        { weight: 5, arbitrary: fc.constant(op.path.startsWith('/v1/admin/') ? 'admin' : 'key') },
        { weight: 3, arbitrary: fc.constantFrom(...Object.keys(credentials)) },
      ),
      body: bodyArb,
      contentType: fc.oneof(
        { weight: 8, arbitrary: fc.constant('application/json') },
        { weight: 1, arbitrary: fc.constantFrom('text/plain', '', 'application/json; charset=latin1') },
      ),
    })
    .map((r): FuzzRequest => {
      let i = 0;
      const path = op.path.replace(/\{[^}]+\}/g, () => r.path[i++] ?? 'x');
      const query: string[] = [];
      queryParams.forEach((p, j) => {
        const v = r.query[j];
        if (v !== undefined) query.push(`${encodeSegment(p.name)}=${encodeSegment(v)}`);
      });
      if (r.extraQuery) query.push(`${encodeSegment(r.extraQuery[0])}=${encodeSegment(r.extraQuery[1])}`);
      const headers: Record<string, string> = { ...credentials[r.who] };
      headerParams.forEach((p, j) => {
        const v = r.headers[j];
        if (v !== undefined) headers[p.name] = typeof v === 'string' ? v : JSON.stringify(v);
      });
      const hasBody = op.method !== 'GET' && op.method !== 'DELETE' && r.body !== undefined;
      if (hasBody && r.contentType) headers['content-type'] = r.contentType;
      return {
        method: op.method,
        url: `${path}${query.length ? `?${query.join('&')}` : ''}`,
        headers,
        route: `${op.method} ${op.path}`,
        ...(hasBody ? { payload: r.body } : {}),
      };
    });
}

const MONEY_ROUTES = new Set([
  'POST /v1/execute/{providerId}/{endpointSlug}',
  'POST /v1/admin/accounts/{accountId}/credits',
  'POST /v1/billing/coupons/redeem',
]);

/** Routes that reach the chain RPC: without a chain in the run, 503 SVC-SYS-002 is the right answer. */
const CHAIN_ROUTES =
  /^(GET|POST) \/(v1\/devnet|v1\/wallet\/deposit|v1\/wallet\/links|x402\/|discovery\/resources)/;

/** Which ledger entry a successful answer of a route writes (for the money check). */
function chargeOf(req: FuzzRequest, status: number, replayed: boolean, fundedId: string): string | undefined {
  if (replayed) return undefined;
  if (req.route === 'POST /v1/execute/{providerId}/{endpointSlug}' && status === 200) return 'debit';
  if (req.route === 'POST /v1/billing/coupons/redeem' && status === 200) return 'coupon_credit';
  if (req.route === 'POST /v1/admin/accounts/{accountId}/credits' && status === 201) {
    return req.url.startsWith(`/v1/admin/accounts/${fundedId}/`) ? 'admin_credit' : 'other account';
  }
  return undefined;
}

/** The app's settings for a fuzz run: rate limits out of the way, so requests reach the handlers. */
export const FUZZ_ENV = { SVC_RATE_LIMIT_MULTIPLIER: '100000' };

export interface FuzzTarget {
  t: TestApp;
  funded: { accountId: string; apiKey: string };
  pools: Pools;
  credentials: Record<string, Record<string, string>>;
  close(): Promise<void>;
}

/** A funded account (whose key the fuzzer uses), a spare account and key, a provider, a coupon. */
export async function prepareTarget(t: TestApp): Promise<FuzzTarget> {
  const provider = await startProviderServer({ record: false });
  const funded = await t.createAccount('fuzz-funded@example.com');
  const spare = await t.createAccount('fuzz-spare@example.com');
  const spareKey = await t.inject({
    method: 'POST',
    url: '/v1/keys',
    headers: { 'x-svc-api-key': funded.apiKey },
    payload: { name: 'spare' },
  });
  const providerId = 'fuzz-provider';
  const reg = await t.admin('POST', '/v1/admin/providers', {
    provider_id: providerId,
    name: 'Fuzz provider',
    description: 'Echoes what it gets',
    category: 'utility',
    base_url: provider.url,
    endpoints: [
      {
        slug: 'echo',
        method: 'POST',
        path: '/echo',
        description: 'echo',
        parameters: {
          q: { type: 'string', required: false, description: 'text' },
          n: { type: 'integer', required: false, description: 'number' },
        },
        pricing: { model: 'per_call', price_per_call_usdc: '0.01' },
        timeout_ms: 2_000,
      },
    ],
  });
  if (reg.statusCode !== 201) throw new Error(`provider registration failed: ${reg.statusCode} ${reg.body}`);
  for (const id of [funded.accountId, spare.accountId]) {
    const res = await t.admin('POST', `/v1/admin/accounts/${id}/credits`, {
      amount_usdc: '1000',
      description: 'fuzz funding',
    });
    if (res.statusCode !== 201) throw new Error(`funding failed: ${res.statusCode} ${res.body}`);
  }
  await t.admin('POST', '/v1/admin/coupons', { code: 'FUZZ1', credits_usdc: '1', description: 'fuzz' });
  return {
    t,
    funded,
    pools: {
      accountId: [spare.accountId, funded.accountId],
      providerId: [providerId],
      provider_id: [providerId],
      endpointSlug: ['echo'],
      slug: ['echo'],
      keyId: [spareKey.json().data?.id ?? spare.keyId],
      code: ['FUZZ1', 'fuzz1'],
      amount_usdc: ['0.000001', '1', '0.1'],
    },
    credentials: {
      key: { 'x-svc-api-key': funded.apiKey },
      bearer: { authorization: `Bearer ${funded.apiKey}` },
      admin: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      none: {},
      garbage: { authorization: 'Bearer svc_live_\u00ff\u00fe' },
    },
    close: () => provider.close(),
  };
}

async function entriesByType(t: TestApp, accountId: string, afterSeq: bigint) {
  const r = (await t.deps.db.orm.execute(
    sql`SELECT type, count(*)::int AS n FROM ledger_entries WHERE account_id = ${accountId} AND seq > ${afterSeq}
        GROUP BY type`,
  )) as unknown as { rows: { type: string; n: number }[] };
  return Object.fromEntries(r.rows.map((x) => [x.type, Number(x.n)]));
}

async function lastSeq(t: TestApp): Promise<bigint> {
  const r = (await t.deps.db.orm.execute(
    sql`SELECT coalesce(max(seq), 0) AS s FROM ledger_entries`,
  )) as unknown as {
    rows: { s: bigint | string }[];
  };
  return BigInt(r.rows[0]?.s ?? 0);
}

function describe(req: FuzzRequest): string {
  const body = req.payload === undefined ? '' : ` ${req.payload.slice(0, 300)}`;
  return `${req.method} ${req.url.slice(0, 300)} [${Object.keys(req.headers).join(',')}]${body}`;
}

/** Sends `runs` generated requests (deterministic for a seed) and checks both properties. */
export async function runFuzz(
  target: FuzzTarget,
  opts: { runs: number; seed: number; onProgress?: (sent: number) => void },
): Promise<FuzzResult> {
  const { t, funded } = target;
  const doc = JSON.parse((await t.inject({ method: 'GET', url: '/docs-json' })).body);
  const ops = operationsOf(doc);
  // The routes that move money are drawn ten times as often: they are what the money check is about.
  const arb = fc.oneof(
    ...ops.map((op) => ({
      weight: MONEY_ROUTES.has(`${op.method} ${op.path}`) ? 10 : 1,
      arbitrary: requestArb(op, target.pools, target.credentials),
    })),
  );
  const startSeq = await lastSeq(t);
  const result: FuzzResult = {
    sent: 0,
    byStatus: {},
    byRoute: {},
    failures: [],
    notOurs: 0,
    unsendable: 0,
    money: { entries: {}, expected: {}, violations: [] },
  };
  const expected: Record<string, number> = {};
  const chunk = 200;
  for (let done = 0; done < opts.runs; done += chunk) {
    const requests = fc.sample(arb, { seed: opts.seed + done, numRuns: Math.min(chunk, opts.runs - done) });
    for (const req of requests) {
      let res: Awaited<ReturnType<TestApp['inject']>>;
      try {
        res = await t.inject({
          method: req.method as InjectOptions['method'],
          url: req.url,
          headers: req.headers,
          ...(req.payload === undefined ? {} : { payload: req.payload }),
        });
      } catch {
        result.unsendable++;
        continue;
      }
      result.sent++;
      const status = res.statusCode;
      result.byStatus[status] = (result.byStatus[status] ?? 0) + 1;
      const routeKey = `${req.route} ${status}`;
      result.byRoute[routeKey] = (result.byRoute[routeKey] ?? 0) + 1;
      const charge = chargeOf(req, status, res.headers['idempotent-replayed'] === 'true', funded.accountId);
      if (charge) expected[charge] = (expected[charge] ?? 0) + 1;
      if (status === 200 && req.url.startsWith(`/v1/admin/accounts/${funded.accountId}/suspend`)) {
        // Keep the fuzzer's own account usable, or every later request would stop at the 403.
        await t.admin('POST', `/v1/admin/accounts/${funded.accountId}/reinstate`, {});
      }
      if (status >= 500) {
        const code = safeCode(res.body);
        const providerFault =
          req.route.includes('{endpointSlug}') &&
          (status === 502 || status === 504) &&
          code?.startsWith('SVC-EXE');
        const noChain = CHAIN_ROUTES.test(req.route) && status === 503 && code === 'SVC-SYS-002';
        if (providerFault || noChain) result.notOurs++;
        else result.failures.push({ request: describe(req), status, body: res.body.slice(0, 300) });
      }
    }
    opts.onProgress?.(Math.min(done + chunk, opts.runs));
  }
  await outcomesWritten(t.app);
  const entries = await entriesByType(t, funded.accountId, startSeq);
  const violations = (await checkLedgerInvariants(t.deps.db.orm)).map((v) => `${v.rule}: ${v.detail}`);
  // Every debit is a charged call the fuzzer saw answered 200 (the echo provider never fails, so no
  // refunds), and every credit one it saw succeed; anything else moved money it should not have.
  for (const type of new Set([...Object.keys(entries), ...Object.keys(expected)])) {
    if (type === 'other account') continue;
    if ((entries[type] ?? 0) !== (expected[type] ?? 0)) {
      violations.push(
        `${type}: ${entries[type] ?? 0} ledger entries for ${expected[type] ?? 0} successful answers`,
      );
    }
  }
  result.money = { entries, expected, violations };
  return result;
}

function safeCode(body: string): string | undefined {
  try {
    return JSON.parse(body)?.error?.code;
  } catch {
    return undefined;
  }
}
