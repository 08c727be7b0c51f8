// Reads config, builds the app, listens. Nothing else — except, with SVC_WORKERS > 1, that the first
// process becomes the cluster primary (src/cluster.ts): it prepares what must happen once (devnet chain,
// migrations, generated secrets), then forks the HTTP workers, each of which runs this same file.
import cluster from 'node:cluster';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { buildApp } from './app.js';
import { runClusterPrimary } from './cluster.js';
import { type Config, ConfigError, loadConfig, startupErrorMessage } from './config.js';
import { lockDataDir } from './db/index.js';
import { type AppDeps, closeDeps, createDeps } from './deps.js';
import { prettyLogStream } from './http/pretty-log.js';
import { startJobs } from './jobs/runner.js';
import {
  assertChainNotBehindLedger,
  ChainBehindLedger,
  type DevnetChain,
  startDevnetChain,
  withDevnetChain,
} from './modules/chain/index.js';
import { startSideServices } from './side-services.js';
import { backgroundJobs } from './wiring.js';

interface Prepared {
  config: Config;
  deps: AppDeps;
  devnetChain: DevnetChain | undefined;
  /** Stops the devnet chain and releases its lock (both no-ops when this process does not own one). */
  stopChain(): Promise<void>;
  fail(err: unknown): Promise<never>;
}

/** Config, the devnet chain when this process owns it, deps (migrations, secrets) and the chain check. */
async function prepare(): Promise<Prepared> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`Configuration error: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  let releaseChainLock = () => {};
  let devnetChain: DevnetChain | undefined;
  const stopChain = async () => {
    await devnetChain?.stop().catch(() => {});
    releaseChainLock();
  };
  const fail = async (err: unknown): Promise<never> => {
    console.error(err instanceof ChainBehindLedger ? err.message : startupErrorMessage(err, config));
    // The stack only when asked for: it is noise for a busy port or a locked data dir.
    if (config.logLevel === 'debug' || config.logLevel === 'trace') console.error(err);
    await stopChain();
    process.exit(1);
  };
  // Devnet with no RPC configured: the service runs its own local chain (docs/architecture.md). Its state
  // lives in the data dir, so it is locked like the embedded database: a second start fails at once
  // instead of running a second chain on the same state file. (Cluster workers are given the primary's
  // chain in their environment, so they never start one.)
  const ownsChain = config.env === 'devnet' && !config.chain.rpcUrl;
  if (ownsChain) {
    try {
      mkdirSync(config.dataDir, { recursive: true });
      releaseChainLock = lockDataDir(path.join(config.dataDir, 'devnet'));
    } catch (err) {
      await fail(err);
    }
    devnetChain = await startDevnetChain(config, (msg) => console.log(msg)).catch(fail);
    config = withDevnetChain(config, devnetChain);
  }
  const deps = await createDeps(config).catch(fail);
  await assertChainNotBehindLedger(deps).catch(async (err: unknown) => {
    await closeDeps(deps);
    return fail(err);
  });
  if (deps.secrets.adminTokenCreated) {
    // Printed once, when generated; it stays in <data dir>/secrets/admin-token.
    console.log(
      `\nAdmin token (saved in ${config.dataDir}/secrets/admin-token):\n  ${deps.secrets.adminToken}\n`,
    );
  }
  return { config, deps, devnetChain, stopChain, fail };
}

/** One HTTP process: the whole service (SVC_WORKERS=1), or one cluster worker. */
async function serve({ config, deps, stopChain, fail }: Prepared) {
  // A person at a terminal in devnet reads the log: readable lines there, JSON everywhere else.
  const pretty = config.env === 'devnet' && process.stdout.isTTY;
  const app = await buildApp(deps, pretty ? { logger: { stream: prettyLogStream() } } : {});
  await app.listen({ port: config.port, host: config.host }).catch(async (err: unknown) => {
    await closeDeps(deps).catch(() => {});
    await fail(err);
  });
  // In a cluster only the worker the primary chose runs jobs and side services (SVC_RUN_JOBS).
  const side = config.runJobs ? await startSideServices(deps, app) : undefined;
  // After the side services: in devnet they list the sample providers, whose vectors the warm-up encodes.
  app.discovery.warm().catch((err: unknown) => app.log.warn({ err }, 'discovery warm-up failed'));
  const jobs = config.runJobs ? startJobs(deps, backgroundJobs, app.log) : undefined;

  let stopping = false;
  const shutdown = async (signal: string) => {
    // A terminal's Ctrl-C reaches a cluster worker twice: from the terminal and from the primary.
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    await app.close();
    await jobs?.stop();
    await side?.stop();
    await closeDeps(deps);
    await stopChain();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}

async function main() {
  const prepared = await prepare();
  if (prepared.config.workers > 1 && cluster.isPrimary) {
    // The primary keeps no connection open: the workers do the work.
    await closeDeps(prepared.deps);
    const { chain } = prepared.config;
    await runClusterPrimary({
      workers: prepared.config.workers,
      // The primary's own chain, so the workers use it instead of each starting one.
      workerEnv:
        prepared.devnetChain && chain.rpcUrl
          ? {
              SVC_CHAIN_RPC_URL: chain.rpcUrl,
              SVC_CHAIN_ID: String(chain.chainId),
              ...(chain.usdcAddress ? { SVC_USDC_ADDRESS: chain.usdcAddress } : {}),
              ...(chain.platformWallet ? { SVC_PLATFORM_WALLET: chain.platformWallet } : {}),
              ...(chain.platformWalletKey ? { SVC_PLATFORM_WALLET_KEY: chain.platformWalletKey } : {}),
            }
          : {},
      runJobs: prepared.config.runJobs,
      onStopped: prepared.stopChain,
    });
    return;
  }
  await serve(prepared);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
