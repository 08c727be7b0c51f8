// The one place that reads process.env. Everything else receives a typed Config.
import { isIP } from 'node:net';
import { availableParallelism } from 'node:os';
import path from 'node:path';

export type SvcEnv = 'production' | 'testnet' | 'devnet';

export interface Config {
  port: number;
  host: string;
  env: SvcEnv;
  publicUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  /** Explicit admin token; when absent outside production one is generated into the data dir. */
  adminToken: string | undefined;
  /** 32-byte key (hex) for encrypting provider secrets; generated into the data dir when absent. */
  encryptionKey: string | undefined;
  smtpUrl: string | undefined;
  mailFrom: string;
  stripe: { secretKey: string; webhookSecret: string; apiBase: string | undefined } | undefined;
  chain: {
    rpcUrl: string | undefined;
    chainId: number;
    usdcAddress: string | undefined;
    platformWallet: string | undefined;
    /** Private key of the platform wallet (payouts, x402 settlement, faucet); never logged or returned. */
    platformWalletKey: string | undefined;
    confirmations: number;
    /** Run the deposit watcher job (on in devnet, SVC_DEPOSIT_WATCH=1 elsewhere). */
    depositWatch: boolean;
    /** Loopback port of the self-started devnet chain; 0 = a free one. */
    devnetChainPort: number;
  };
  /** x402 (docs/x402.md): a remote facilitator's base URL; unset = settle in-process. */
  x402: { facilitatorUrl: string | undefined };
  /** Provider earnings and the daily settlement (docs/payouts.md). */
  payouts: {
    /** SVC_PAYOUT_HOLD_DAYS: earnings are paid this many days later (card disputes). */
    holdDays: number;
    /** SVC_PLATFORM_FEE_BPS: the platform's fee on each settlement's gross, in basis points. */
    feeBps: number;
    /** SVC_MIN_PAYOUT_USDC in credits: a smaller net is carried over to the next settlement. */
    minPayoutCredits: bigint;
    /** SVC_SETTLEMENTS: run the daily settlement job on this instance (on by default). */
    job: boolean;
  };
  /**
   * SVC_TEST_CRASH_AT (never in production): the process kills itself with SIGKILL at this named point,
   * so crash-safety tests can stop it between two writes (src/lib/crash-point.ts).
   */
  testCrashAt: string | undefined;
  auth: {
    jwksUrl: string | undefined;
    issuer: string | undefined;
    audience: string | undefined;
    /** Secret for built-in session JWTs; generated into the data dir when absent. */
    sessionSecret: string | undefined;
  };
  sampleProviders: boolean;
  /** API key the `svc` command line uses against a running service (SVC_API_KEY). */
  cliApiKey: string | undefined;
  rateLimitMultiplier: number;
  /** Rate limits per window (before the multiplier) and trust-tier thresholds (docs/ratelimit.md). */
  rateLimit: RateLimitConfig;
  trustProxy: string | undefined;
  bodyLimitBytes: number;
  logLevel: string;
  /**
   * SVC_WORKERS: HTTP worker processes (node:cluster) sharing the port. More than one needs PostgreSQL and
   * Redis (docs/performance.md); default = available cores when both are set in production, else 1.
   */
  workers: number;
  /** SVC_RUN_JOBS: this process runs the background jobs (and side services); the cluster primary sets it per worker. */
  runJobs: boolean;
  /** SVC_ALLOW_PRIVATE_PROVIDERS: provider base URLs may reach private/loopback addresses (always in devnet). */
  allowPrivateProviders: boolean;
  /** Sentence embeddings fused into discovery's ranking; undefined with SVC_EMBEDDINGS=off. */
  discoveryEmbeddings: DiscoveryEmbeddingsConfig | undefined;
}

export interface RateLimitConfig {
  windowSeconds: number;
  anonymous: number;
  walletNew: number;
  walletEstablished: number;
  walletTrusted: number;
  /** All unsigned `X-Svc-Wallet` claims from one IP together (rotating forged wallets gains nothing). */
  walletPerIp: number;
  account: number;
  walletBalance: number;
  walletDeposit: number;
  walletHistory: number;
  keysList: number;
  keysCreate: number;
  establishedPayments: number;
  trustedPayments: number;
  /** How long an instance may keep a trust tier it read (0 = read the counter on every request). */
  trustTierCacheSeconds: number;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function str(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = str(env, name);
  if (raw === undefined) return fallback;
  if (!/^-?\d+$/.test(raw)) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}

function positiveNumber(env: Env, name: string, fallback: number): number {
  const raw = str(env, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new ConfigError(`${name} must be a positive number, got "${raw}"`);
  return n;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = str(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['1', 'true', 'on', 'yes'].includes(raw)) return true;
  if (['0', 'false', 'off', 'no'].includes(raw)) return false;
  throw new ConfigError(`${name} must be on/off (true/false, 1/0), got "${raw}"`);
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = str(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL, got "${raw}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  }
  return raw;
}

export function loadConfig(env: Env = process.env): Config {
  const svcEnv = (str(env, 'SVC_ENV') ?? 'devnet') as SvcEnv;
  if (!['production', 'testnet', 'devnet'].includes(svcEnv)) {
    throw new ConfigError(`SVC_ENV must be production, testnet or devnet, got "${svcEnv}"`);
  }
  const port = int(env, 'PORT', 8080, 0, 65535);
  const host = str(env, 'HOST') ?? '127.0.0.1';
  const publicUrl = (url(env, 'SVC_PUBLIC_URL', ['http:', 'https:']) ?? `http://${host}:${port}`).replace(
    /\/$/,
    '',
  );

  const adminToken = str(env, 'SVC_ADMIN_TOKEN');
  if (svcEnv === 'production' && !adminToken)
    throw new ConfigError('SVC_ADMIN_TOKEN is required in production');
  if (adminToken !== undefined && adminToken.length < 24) {
    throw new ConfigError('SVC_ADMIN_TOKEN must be at least 24 characters');
  }
  const encryptionKey = str(env, 'SVC_ENCRYPTION_KEY');
  if (encryptionKey !== undefined && !/^[0-9a-fA-F]{64}$/.test(encryptionKey)) {
    throw new ConfigError('SVC_ENCRYPTION_KEY must be 64 hex characters (32 bytes)');
  }
  if (svcEnv === 'production' && !encryptionKey)
    throw new ConfigError('SVC_ENCRYPTION_KEY is required in production');

  const stripeKey = str(env, 'STRIPE_SECRET_KEY');
  const stripeWebhook = str(env, 'STRIPE_WEBHOOK_SECRET');
  if ((stripeKey === undefined) !== (stripeWebhook === undefined)) {
    throw new ConfigError('STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET must be set together');
  }
  if (svcEnv === 'production' && !stripeKey) {
    throw new ConfigError(
      'STRIPE_SECRET_KEY is required in production (the local checkout is refused there)',
    );
  }

  const sessionSecret = str(env, 'SVC_SESSION_SECRET');
  if (sessionSecret !== undefined && sessionSecret.length < 32) {
    throw new ConfigError('SVC_SESSION_SECRET must be at least 32 characters (it signs session tokens)');
  }
  // An external identity provider is trusted only for its own issuer and our audience: all three or none.
  const idpVars = ['SVC_AUTH_JWKS_URL', 'SVC_AUTH_ISSUER', 'SVC_AUTH_AUDIENCE'];
  const idpSet = idpVars.filter((name) => str(env, name) !== undefined);
  if (idpSet.length > 0 && idpSet.length < idpVars.length) {
    throw new ConfigError(`${idpVars.join(', ')} must be set together (only ${idpSet.join(', ')} set)`);
  }

  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const redisUrl = url(env, 'REDIS_URL', ['redis:', 'rediss:']);
  const workers = workerCount(env, svcEnv, databaseUrl, redisUrl);

  return {
    port,
    host,
    env: svcEnv,
    publicUrl,
    dataDir: path.resolve(str(env, 'SVC_DATA_DIR') ?? './data'),
    databaseUrl,
    redisUrl,
    adminToken,
    encryptionKey,
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: str(env, 'MAIL_FROM') ?? 'Svc <no-reply@svc.local>',
    stripe:
      stripeKey && stripeWebhook
        ? {
            secretKey: stripeKey,
            webhookSecret: stripeWebhook,
            apiBase: url(env, 'STRIPE_API_BASE', ['http:', 'https:']),
          }
        : undefined,
    chain: chainConfig(env, svcEnv),
    x402: { facilitatorUrl: url(env, 'SVC_X402_FACILITATOR_URL', ['http:', 'https:']) },
    payouts: payoutsConfig(env),
    testCrashAt: testCrashAt(env, svcEnv),
    auth: {
      jwksUrl: url(env, 'SVC_AUTH_JWKS_URL', ['http:', 'https:']),
      issuer: str(env, 'SVC_AUTH_ISSUER'),
      audience: str(env, 'SVC_AUTH_AUDIENCE'),
      sessionSecret,
    },
    sampleProviders: bool(env, 'SVC_SAMPLE_PROVIDERS', svcEnv === 'devnet'),
    cliApiKey: str(env, 'SVC_API_KEY'),
    rateLimitMultiplier: positiveNumber(env, 'SVC_RATE_LIMIT_MULTIPLIER', 1),
    rateLimit: rateLimitConfig(env),
    trustProxy: trustProxyList(env),
    bodyLimitBytes: int(env, 'SVC_BODY_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
    logLevel: logLevel(env),
    workers,
    runJobs: bool(env, 'SVC_RUN_JOBS', true),
    allowPrivateProviders: bool(env, 'SVC_ALLOW_PRIVATE_PROVIDERS', false),
    discoveryEmbeddings: discoveryEmbeddingsConfig(env),
  };
}

/**
 * Worker processes. Several processes cannot share the embedded database (one process holds its files),
 * and per-process rate-limit counters would multiply every limit by N: both are refused, not degraded.
 */
function workerCount(
  env: Env,
  svcEnv: SvcEnv,
  databaseUrl: string | undefined,
  redisUrl: string | undefined,
): number {
  const shared = databaseUrl !== undefined && redisUrl !== undefined;
  const fallback = svcEnv === 'production' && shared ? availableParallelism() : 1;
  const n = int(env, 'SVC_WORKERS', fallback, 1, 256);
  if (n > 1 && databaseUrl === undefined) {
    throw new ConfigError(
      `SVC_WORKERS=${n} needs DATABASE_URL: the embedded database (PGlite) can be opened by one process only; ` +
        'set DATABASE_URL to a PostgreSQL server, or SVC_WORKERS=1',
    );
  }
  if (n > 1 && redisUrl === undefined) {
    throw new ConfigError(
      `SVC_WORKERS=${n} needs REDIS_URL: without Redis each worker would count rate limits on its own ` +
        `(${n}× the limit); set REDIS_URL, or SVC_WORKERS=1`,
    );
  }
  return n;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** docs/deposits.md: Base in production, Base Sepolia in testnet, a local chain (31337) in devnet. */
function chainConfig(env: Env, svcEnv: SvcEnv): Config['chain'] {
  const devnet = svcEnv === 'devnet';
  const address = (name: string) => {
    const raw = str(env, name);
    if (raw !== undefined && !ADDRESS.test(raw))
      throw new ConfigError(`${name} must be a 0x-prefixed 20-byte address`);
    return raw?.toLowerCase();
  };
  const key = str(env, 'SVC_PLATFORM_WALLET_KEY');
  // The key's value never appears in a message.
  if (key !== undefined && !/^0x[0-9a-fA-F]{64}$/.test(key)) {
    throw new ConfigError('SVC_PLATFORM_WALLET_KEY must be a 0x-prefixed 32-byte hex private key');
  }
  return {
    rpcUrl: url(env, 'SVC_CHAIN_RPC_URL', ['http:', 'https:']),
    chainId: int(
      env,
      'SVC_CHAIN_ID',
      { production: 8453, testnet: 84532, devnet: 31337 }[svcEnv],
      1,
      2 ** 31,
    ),
    usdcAddress: address('SVC_USDC_ADDRESS'),
    platformWallet: address('SVC_PLATFORM_WALLET'),
    platformWalletKey: key?.toLowerCase(),
    confirmations: int(env, 'SVC_DEPOSIT_CONFIRMATIONS', devnet ? 1 : 2, 1, 1000),
    depositWatch: bool(env, 'SVC_DEPOSIT_WATCH', devnet),
    devnetChainPort: int(env, 'SVC_DEVNET_CHAIN_PORT', 0, 0, 65535),
  };
}

function payoutsConfig(env: Env): Config['payouts'] {
  const minRaw = str(env, 'SVC_MIN_PAYOUT_USDC') ?? '0.10';
  if (!/^\d{1,9}(\.\d{1,6})?$/.test(minRaw)) {
    throw new ConfigError(
      `SVC_MIN_PAYOUT_USDC must be a USDC amount with at most 6 decimals (e.g. 0.10), got "${minRaw}"`,
    );
  }
  const [whole = '0', frac = ''] = minRaw.split('.');
  return {
    holdDays: int(env, 'SVC_PAYOUT_HOLD_DAYS', 0, 0, 365),
    feeBps: int(env, 'SVC_PLATFORM_FEE_BPS', 300, 0, 10_000),
    minPayoutCredits: BigInt(whole) * 1_000_000n + BigInt(frac.padEnd(6, '0')),
    job: bool(env, 'SVC_SETTLEMENTS', true),
  };
}

function testCrashAt(env: Env, svcEnv: SvcEnv): string | undefined {
  const point = str(env, 'SVC_TEST_CRASH_AT');
  if (point !== undefined && svcEnv === 'production') {
    throw new ConfigError('SVC_TEST_CRASH_AT is a test setting and is refused in production');
  }
  return point;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function logLevel(env: Env): string {
  const raw = str(env, 'LOG_LEVEL')?.toLowerCase() ?? 'info';
  if (!LOG_LEVELS.includes(raw))
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  return raw;
}

/** A start-up failure as one line a person can act on (the stack is for bugs, not for a busy port). */
export function startupErrorMessage(err: unknown, config: Pick<Config, 'host' | 'port'>): string {
  const e = err as { code?: unknown; message?: unknown };
  if (err instanceof ConfigError) return `Configuration error: ${err.message}`;
  if (e.code === 'EADDRINUSE') {
    return `Cannot start: ${config.host}:${config.port} is already in use (set PORT to a free port or stop the other process)`;
  }
  if (e.code === 'EACCES')
    return `Cannot start: no permission to listen on ${config.host}:${config.port} (set PORT)`;
  if (e.code === 'EADDRNOTAVAIL')
    return `Cannot start: HOST=${config.host} is not an address of this machine`;
  return `Cannot start: ${String(e.message ?? err)}`;
}

function rateLimitConfig(env: Env): RateLimitConfig {
  const limit = (name: string, fallback: number) => int(env, name, fallback, 1, 1_000_000_000);
  const establishedPayments = int(env, 'SVC_TRUST_ESTABLISHED_PAYMENTS', 100, 1, 1_000_000_000);
  const trustedPayments = int(env, 'SVC_TRUST_TRUSTED_PAYMENTS', 1000, 1, 1_000_000_000);
  if (trustedPayments < establishedPayments) {
    throw new ConfigError('SVC_TRUST_TRUSTED_PAYMENTS must be at least SVC_TRUST_ESTABLISHED_PAYMENTS');
  }
  return {
    windowSeconds: int(env, 'SVC_RATE_LIMIT_WINDOW_SECONDS', 60, 1, 86_400),
    anonymous: limit('SVC_RATE_LIMIT_ANONYMOUS', 20),
    walletNew: limit('SVC_RATE_LIMIT_WALLET_NEW', 30),
    walletEstablished: limit('SVC_RATE_LIMIT_WALLET_ESTABLISHED', 100),
    walletTrusted: limit('SVC_RATE_LIMIT_WALLET_TRUSTED', 500),
    walletPerIp: limit('SVC_RATE_LIMIT_WALLET_PER_IP', 500),
    account: limit('SVC_RATE_LIMIT_ACCOUNT', 100),
    walletBalance: limit('SVC_RATE_LIMIT_WALLET_BALANCE', 60),
    walletDeposit: limit('SVC_RATE_LIMIT_WALLET_DEPOSIT', 10),
    walletHistory: limit('SVC_RATE_LIMIT_WALLET_HISTORY', 30),
    keysList: limit('SVC_RATE_LIMIT_KEYS_LIST', 30),
    keysCreate: limit('SVC_RATE_LIMIT_KEYS_CREATE', 10),
    establishedPayments,
    trustedPayments,
    trustTierCacheSeconds: int(env, 'SVC_TRUST_TIER_CACHE_SECONDS', 5, 0, 3600),
  };
}

/** Addresses, CIDRs or proxy-addr's names; Fastify would take "true" or a hop count otherwise. */
function trustProxyList(env: Env): string | undefined {
  const raw = str(env, 'SVC_TRUST_PROXY');
  if (raw === undefined) return undefined;
  for (const entry of raw.split(',').map((s) => s.trim())) {
    const [addr, bits, extra] = entry.split('/');
    const named = ['loopback', 'linklocal', 'uniquelocal'].includes(entry);
    const version = isIP(addr ?? '');
    const maxBits = version === 6 ? 128 : 32;
    const cidrOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits);
    if (!named && (version === 0 || !cidrOk || extra !== undefined)) {
      throw new ConfigError(
        `SVC_TRUST_PROXY must list proxy addresses, CIDRs, loopback, linklocal or uniquelocal; got "${entry}"`,
      );
    }
  }
  return raw;
}

/**
 * Sentence embeddings fused into discovery's ranking (docs/discovery.md): the sentence encoder shipped
 * with the service (`local`, the default), or an OpenAI-compatible embeddings API (`api`).
 */
export type DiscoveryEmbeddingsConfig =
  | { source: 'local'; weight: number }
  | {
      source: 'api';
      /** Base URL; requests go to `${url}/embeddings`. */
      url: string;
      model: string;
      apiKey: string | undefined;
      /** Share of the fused relevance that comes from embedding similarity (0..1). */
      weight: number;
    };

/** Share of the fused relevance from the local encoder: fitted by cross-validation (npm run eval:discovery). */
export const LOCAL_EMBEDDINGS_WEIGHT = 0.4;

function discoveryEmbeddingsConfig(env: Env): DiscoveryEmbeddingsConfig | undefined {
  const mode = str(env, 'SVC_EMBEDDINGS')?.toLowerCase() ?? 'local';
  if (!['local', 'off'].includes(mode))
    throw new ConfigError(`SVC_EMBEDDINGS must be local or off, got "${mode}"`);
  if (mode === 'off') return undefined;
  const base = url(env, 'SVC_EMBEDDINGS_URL', ['http:', 'https:']);
  const weight = positiveNumber(
    env,
    'SVC_EMBEDDINGS_WEIGHT',
    base === undefined ? LOCAL_EMBEDDINGS_WEIGHT : 0.5,
  );
  if (weight > 1) throw new ConfigError(`SVC_EMBEDDINGS_WEIGHT must be between 0 and 1, got ${weight}`);
  if (base === undefined) return { source: 'local', weight };
  return {
    source: 'api',
    url: base.replace(/\/+$/, ''),
    model: str(env, 'SVC_EMBEDDINGS_MODEL') ?? 'text-embedding-3-small',
    apiKey: str(env, 'SVC_EMBEDDINGS_API_KEY'),
    weight,
  };
}

/** `svc mcp` (stdio relay for desktop agents): which service to reach and with which key. */
export interface McpBridgeConfig {
  serviceUrl: string;
  apiKey: string | undefined;
}

export function loadMcpBridgeConfig(env: Env = process.env): McpBridgeConfig {
  const apiKey = str(env, 'SVC_API_KEY');
  if (apiKey !== undefined && !apiKey.startsWith('svc_sk_')) {
    throw new ConfigError('SVC_API_KEY must be an API key (svc_sk_...)');
  }
  return { serviceUrl: url(env, 'SVC_URL', ['http:', 'https:']) ?? 'http://127.0.0.1:8080', apiKey };
}

/** What the `svc` user commands need (they talk to a service over HTTP, not to its database). */
export interface CliConfig {
  /** SVC_URL: the service, default http://127.0.0.1:8080 */
  url: string;
  /** Whether SVC_URL was set (else `url` is the default). */
  urlSet: boolean;
  /** SVC_API_KEY: overrides the saved credentials. */
  apiKey: string | undefined;
  /** SVC_CREDENTIALS_FILE: where `svc login` saves credentials, default ~/.config/svc/credentials.json */
  credentialsFile: string;
}

export function loadCliConfig(env: Env = process.env): CliConfig {
  const home = str(env, 'HOME') ?? '.';
  return {
    url: (url(env, 'SVC_URL', ['http:', 'https:']) ?? 'http://127.0.0.1:8080').replace(/\/$/, ''),
    urlSet: url(env, 'SVC_URL', ['http:', 'https:']) !== undefined,
    apiKey: str(env, 'SVC_API_KEY'),
    credentialsFile: path.resolve(
      str(env, 'SVC_CREDENTIALS_FILE') ?? path.join(home, '.config', 'svc', 'credentials.json'),
    ),
  };
}
