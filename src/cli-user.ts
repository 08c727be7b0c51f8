// The `svc` user commands: a user's flows over HTTP with @svc/client (docs/cli.md). Every command
// takes --json (machine output) and --help; exit codes are listed in EXIT below and in docs/cli.md.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import {
  CLIENT_ERROR_CODES,
  type KeyPolicy,
  type ResponseOf,
  SvcClient,
  SvcError,
} from '../packages/client/src/index.js';
import { type CliConfig, loadCliConfig } from './config.js';

export const EXIT = {
  ok: 0,
  failed: 1, // the service refused or failed (any other SVC-* error)
  usage: 2, // unknown command, bad or missing flags
  auth: 3, // no credentials, or refused (401/403)
  payment: 4, // insufficient balance or a spend limit (402)
  unreachable: 5, // no answer from the service
} as const;

type Flags = Record<string, string | boolean | undefined>;
type Options = Record<string, { type: 'string' | 'boolean'; short?: string }>;

interface UserCommand {
  name: string;
  usage: string;
  summary: string;
  /** More help, printed by --help only. */
  details?: string;
  options: Options;
  run(ctx: Context, flags: Flags, positionals: string[]): Promise<unknown>;
  /** Human output (the --json output is the returned value as JSON). */
  print?(result: unknown): string;
}

interface Context {
  config: CliConfig;
  client: SvcClient;
  saveCredentials(c: Credentials): void;
}

interface Credentials {
  url: string;
  api_key?: string;
  session_token?: string;
}

class UsageError extends Error {}

const COMMON: Options = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  url: { type: 'string' },
  'api-key': { type: 'string' },
};

const str = (flags: Flags, name: string): string | undefined =>
  typeof flags[name] === 'string' ? (flags[name] as string) : undefined;
function need(flags: Flags, name: string): string {
  const v = str(flags, name);
  if (!v) throw new UsageError(`--${name} is required`);
  return v;
}
const int = (flags: Flags, name: string): number | undefined => {
  const v = str(flags, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number`);
  return Number(v);
};
const table = (rows: string[][]) => rows.map((r) => r.join('  ')).join('\n');

const POLICY_OPTIONS: Options = {
  'daily-limit': { type: 'string' },
  daily: { type: 'string' }, // the short form docs/cli.md shows (`svc keys create --daily 5`)
  'total-limit': { type: 'string' },
  'per-call-limit': { type: 'string' },
  providers: { type: 'string' },
  categories: { type: 'string' },
  'expires-at': { type: 'string' },
};

const list = (v: string | undefined) =>
  v === undefined
    ? undefined
    : v
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean);

/** The policy the flags describe, or undefined when none is given. The service validates the values. */
function policyFromFlags(flags: Flags): KeyPolicy | undefined {
  const daily = str(flags, 'daily-limit') ?? str(flags, 'daily');
  const policy: KeyPolicy = {
    ...(daily !== undefined ? { daily_limit_usdc: daily } : {}),
    ...(str(flags, 'total-limit') !== undefined ? { total_limit_usdc: str(flags, 'total-limit') } : {}),
    ...(str(flags, 'per-call-limit') !== undefined
      ? { per_call_max_usdc: str(flags, 'per-call-limit') }
      : {}),
    ...(str(flags, 'providers') !== undefined ? { allowed_providers: list(str(flags, 'providers')) } : {}),
    ...(str(flags, 'categories') !== undefined ? { allowed_categories: list(str(flags, 'categories')) } : {}),
    ...(str(flags, 'expires-at') !== undefined ? { expires_at: str(flags, 'expires-at') } : {}),
  };
  return Object.keys(policy).length > 0 ? policy : undefined;
}

/** A key as `GET /v1/keys` lists it. */
type KeyRow = ResponseOf<'/v1/keys', 'get'>['data'][number];

/** "today 1.2/5 USDC  total 7.5/50 USDC  per call ≤0.25  providers a,b  expires …" for `keys list`. */
function describePolicy(k: KeyRow): string {
  const p = k.policy;
  const today = k.usage?.today_usdc ?? '0';
  const total = k.usage?.total_usdc ?? '0';
  if (!p) return `no policy  today ${today}  total ${total} USDC`;
  const parts = [
    `today ${today}${p.daily_limit_usdc !== null ? `/${p.daily_limit_usdc}` : ''}`,
    `total ${total}${p.total_limit_usdc !== null ? `/${p.total_limit_usdc}` : ''} USDC`,
  ];
  if (p.per_call_max_usdc !== null) parts.push(`per call <= ${p.per_call_max_usdc}`);
  if (p.allowed_providers) parts.push(`providers ${p.allowed_providers.join(',')}`);
  if (p.allowed_categories) parts.push(`categories ${p.allowed_categories.join(',')}`);
  if (p.expires_at) parts.push(`expires ${p.expires_at}`);
  return parts.join('  ');
}

export const userCommands: UserCommand[] = [
  {
    name: 'login',
    usage: 'login (--api-key KEY | --email E [--code C])',
    summary: 'save an API key, or sign in with an e-mailed code (session token)',
    options: { email: { type: 'string' }, code: { type: 'string' } },
    async run(ctx, flags) {
      const apiKey = str(flags, 'api-key');
      if (apiKey) {
        const client = new SvcClient({ baseUrl: ctx.config.url, apiKey });
        const status = await client.authStatus();
        ctx.saveCredentials({ url: ctx.config.url, api_key: apiKey });
        return status.data;
      }
      const email = need(flags, 'email');
      let code = str(flags, 'code');
      if (!code) {
        await ctx.client.requestLogin(email);
        if (!process.stdin.isTTY)
          return { status: 'code_sent', next: `svc login --email ${email} --code CODE` };
        const rl = createInterface({ input: process.stdin, output: process.stderr });
        code = (await rl.question(`Code e-mailed to ${email}: `)).trim();
        rl.close();
      }
      const session = await ctx.client.verifyLogin(email, code);
      ctx.saveCredentials({ url: ctx.config.url, session_token: session.data.session_token });
      return { account_id: session.data.account_id, expires_at: session.data.expires_at };
    },
  },
  {
    name: 'keys',
    usage:
      'keys create --name N [POLICY] | keys policy KEY_ID (POLICY | --none) | keys list | keys revoke KEY_ID',
    details:
      'POLICY (an agent key): [--daily-limit USDC] [--total-limit USDC] [--per-call-limit USDC]\n' +
      '  [--providers a,b] [--categories x,y] [--expires-at ISO-DATE-TIME]\n' +
      '`keys policy` replaces the whole policy; --none removes it. `keys list` shows each policy and usage.',
    summary: "manage the account's API keys; a key with a policy is an agent key (docs/keys.md)",
    options: {
      name: { type: 'string' },
      none: { type: 'boolean' },
      ...POLICY_OPTIONS,
    },
    async run(ctx, flags, [action, keyId]) {
      const policy = policyFromFlags(flags);
      if (action === 'create') return (await ctx.client.createKey(need(flags, 'name'), policy)).data;
      if (action === 'policy' && keyId) {
        if (flags.none) {
          if (policy) throw new UsageError('--none removes the policy: give no policy flags with it');
          return (await ctx.client.setKeyPolicy(keyId, null)).data;
        }
        if (!policy) throw new UsageError('keys policy needs policy flags, or --none to remove the policy');
        return (await ctx.client.setKeyPolicy(keyId, policy)).data;
      }
      if (policy || flags.none) throw new UsageError('policy flags go with keys create or keys policy');
      if (action === 'list') return (await ctx.client.listKeys()).data;
      if (action === 'revoke' && keyId) return (await ctx.client.revokeKey(keyId)).data;
      throw new UsageError('keys needs create --name N, policy KEY_ID, list, or revoke KEY_ID');
    },
    print: (r) =>
      Array.isArray(r)
        ? table((r as KeyRow[]).map((k) => [k.id, k.prefix, k.status, k.name, describePolicy(k)]))
        : JSON.stringify(r, null, 2),
  },
  {
    name: 'discover',
    usage: 'discover "QUERY" [--category C] [--max-price USDC] [--min-uptime PCT] [--limit N]',
    summary: 'find endpoints by a natural-language query',
    options: {
      category: { type: 'string' },
      'max-price': { type: 'string' },
      'min-uptime': { type: 'string' },
      limit: { type: 'string' },
    },
    async run(ctx, flags, positionals) {
      const query = positionals.join(' ').trim();
      if (!query && !str(flags, 'category')) throw new UsageError('discover needs a query or --category');
      const filters: Record<string, unknown> = {};
      if (str(flags, 'category')) filters.category = str(flags, 'category');
      if (str(flags, 'max-price')) filters.max_price_per_call = Number(str(flags, 'max-price'));
      if (str(flags, 'min-uptime')) filters.min_uptime_pct = Number(str(flags, 'min-uptime'));
      const limit = int(flags, 'limit');
      return (
        await ctx.client.discover({ ...(query ? { query } : {}), filters, ...(limit ? { limit } : {}) })
      ).results;
    },
    print: (r) =>
      table(
        (
          r as {
            provider_id: string;
            endpoint_slug: string;
            pricing: { price_per_call_usdc: string };
            description: string;
          }[]
        ).map((e) => [
          `${e.provider_id}/${e.endpoint_slug}`,
          `${e.pricing.price_per_call_usdc} USDC`,
          e.description,
        ]),
      ),
  },
  {
    name: 'call',
    usage:
      'call (--query Q | --provider P --endpoint E) [--params JSON] [--max-price USDC] [--min-uptime PCT] [--attempts N]',
    summary: 'call the best endpoint, failing over to the next on a refunded failure',
    options: {
      query: { type: 'string' },
      provider: { type: 'string' },
      endpoint: { type: 'string' },
      params: { type: 'string' },
      'max-price': { type: 'string' },
      'min-uptime': { type: 'string' },
      attempts: { type: 'string' },
    },
    async run(ctx, flags) {
      let params: Record<string, unknown> = {};
      try {
        params = JSON.parse(str(flags, 'params') ?? '{}') as Record<string, unknown>;
      } catch {
        throw new UsageError('--params must be a JSON object');
      }
      const query = str(flags, 'query');
      const provider = str(flags, 'provider');
      const endpoint = str(flags, 'endpoint');
      if (!query && !(provider && endpoint))
        throw new UsageError('call needs --query, or --provider and --endpoint');
      const maxPrice = str(flags, 'max-price');
      const minUptime = str(flags, 'min-uptime');
      const attempts = int(flags, 'attempts');
      return ctx.client.call({
        ...(query ? { query } : {}),
        ...(provider && endpoint ? { provider_id: provider, endpoint } : {}),
        params,
        ...(maxPrice ? { max_price_per_call: maxPrice } : {}),
        ...(minUptime ? { min_uptime_pct: Number(minUptime) } : {}),
        ...(attempts ? { attempts } : {}),
      });
    },
  },
  {
    name: 'balance',
    usage: 'balance',
    summary: 'balance and lifetime totals',
    options: {},
    run: async (ctx) => (await ctx.client.balance()).data,
  },
  {
    name: 'history',
    usage: 'history [--type call|deposit|refund|settlement] [--limit N]',
    summary: 'ledger history, newest first',
    options: { type: { type: 'string' }, limit: { type: 'string' } },
    async run(ctx, flags) {
      const type = str(flags, 'type') as 'call' | 'deposit' | 'refund' | 'settlement' | undefined;
      const limit = int(flags, 'limit');
      return (await ctx.client.history({ ...(type ? { type } : {}), ...(limit ? { limit } : {}) })).data;
    },
    print: (r) =>
      table(
        (r as { timestamp: string; type: string; amount_usdc: string; description: string }[]).map((e) => [
          e.timestamp,
          e.type,
          e.amount_usdc,
          e.description,
        ]),
      ),
  },
  {
    name: 'limits',
    usage: 'limits [--daily USDC|none] [--per-call USDC|none]',
    summary: 'show or set the daily and per-call spend limits',
    options: { daily: { type: 'string' }, 'per-call': { type: 'string' } },
    async run(ctx, flags) {
      const value = (v: string | undefined) => (v === 'none' ? null : v);
      const daily = str(flags, 'daily');
      const perCall = str(flags, 'per-call');
      if (daily === undefined && perCall === undefined) {
        const b = await ctx.client.billingBalance();
        return { dailySpendLimitUsdc: b.dailySpendLimitUsdc, perCallLimitUsdc: b.perCallLimitUsdc };
      }
      return ctx.client.setLimits({
        ...(daily !== undefined ? { dailySpendLimitUsdc: value(daily) } : {}),
        ...(perCall !== undefined ? { perCallLimitUsdc: value(perCall) } : {}),
      });
    },
  },
  {
    name: 'usage',
    usage: 'usage [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--by-provider] [--csv]',
    summary: 'usage summary, or the usage CSV export with --csv',
    options: {
      from: { type: 'string' },
      to: { type: 'string' },
      'by-provider': { type: 'boolean' },
      csv: { type: 'boolean' },
    },
    async run(ctx, flags) {
      const range = {
        ...(str(flags, 'from') ? { from: str(flags, 'from') } : {}),
        ...(str(flags, 'to') ? { to: str(flags, 'to') } : {}),
      };
      if (flags.csv) return { csv: await ctx.client.usageCsv(range) };
      return ctx.client.usage({
        ...range,
        ...(flags['by-provider'] ? { groupBy: 'provider' as const } : {}),
      });
    },
    print: (r) => ((r as { csv?: string }).csv ?? JSON.stringify(r, null, 2)).replace(/\n$/, ''),
  },
];

export function userCommandsHelp(): string {
  const width = 34;
  return userCommands
    .map((c) => {
      const head = `  ${c.usage}`;
      return head.length < width
        ? `${head.padEnd(width)}${c.summary}`
        : `${head}\n${' '.repeat(width)}${c.summary}`;
    })
    .join('\n');
}

function readCredentials(file: string): Credentials | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Credentials;
  } catch {
    return undefined;
  }
}

/** Runs one user command; returns the exit code. */
export async function runUserCommand(name: string, argv: string[]): Promise<number> {
  const command = userCommands.find((c) => c.name === name);
  if (!command) return EXIT.usage;
  let json = argv.includes('--json');
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { ...COMMON, ...command.options },
      allowPositionals: true,
      strict: true,
    });
    json = values.json === true;
    if (values.help) {
      console.log(
        `usage: svc ${command.usage} [--json] [--url URL] [--api-key KEY]\n\n${command.summary}` +
          (command.details ? `\n\n${command.details}` : ''),
      );
      return EXIT.ok;
    }
    const config = loadCliConfig();
    const baseUrl = (values.url as string | undefined) ?? config.url;
    const saved = readCredentials(config.credentialsFile);
    const savedHere = saved?.url === baseUrl ? saved : undefined;
    const apiKey = (values['api-key'] as string | undefined) ?? config.apiKey ?? savedHere?.api_key;
    const sessionToken = apiKey ? undefined : savedHere?.session_token;
    const client = new SvcClient({
      baseUrl,
      ...(apiKey ? { apiKey } : {}),
      ...(sessionToken ? { sessionToken } : {}),
    });
    const ctx: Context = {
      config: { ...config, url: baseUrl },
      client,
      saveCredentials(c) {
        mkdirSync(path.dirname(config.credentialsFile), { recursive: true });
        writeFileSync(config.credentialsFile, `${JSON.stringify(c, null, 2)}\n`, { mode: 0o600 });
        chmodSync(config.credentialsFile, 0o600);
      },
    };
    const result = await command.run(ctx, values as Flags, positionals);
    console.log(json || !command.print ? JSON.stringify(result, null, 2) : command.print(result));
    return EXIT.ok;
  } catch (err) {
    return reportError(err, json);
  }
}

function reportError(err: unknown, json: boolean): number {
  if (
    err instanceof UsageError ||
    (err instanceof TypeError && 'code' in err && String(err.code).startsWith('ERR_PARSE_ARGS'))
  ) {
    console.error(
      json ? JSON.stringify({ error: { code: 'USAGE', message: err.message } }) : `svc: ${err.message}`,
    );
    return EXIT.usage;
  }
  if (!(err instanceof SvcError)) throw err;
  if (json) {
    const { code, status, requestId, details, attempts, message } = err;
    console.error(
      JSON.stringify({ error: { code, status, message, request_id: requestId, details, attempts } }, null, 2),
    );
  } else {
    console.error(`svc: ${err.code}: ${err.message}${err.requestId ? ` (request ${err.requestId})` : ''}`);
  }
  if (err.code === CLIENT_ERROR_CODES.network) return EXIT.unreachable;
  if (err.status === 401 || err.status === 403) return EXIT.auth;
  if (err.status === 402) return EXIT.payment;
  return EXIT.failed;
}
