// Reads config, builds the app, listens. Nothing else.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, startupErrorMessage } from './config.js';
import { lockDataDir } from './db/index.js';
import { closeDeps, createDeps } from './deps.js';
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

async function main() {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`Configuration error: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  const fail = async (err: unknown): Promise<never> => {
    console.error(err instanceof ChainBehindLedger ? err.message : startupErrorMessage(err, config));
    // The stack only when asked for: it is noise for a busy port or a locked data dir.
    if (config.logLevel === 'debug' || config.logLevel === 'trace') console.error(err);
    await devnetChain?.stop().catch(() => {});
    releaseChainLock();
    process.exit(1);
  };
  // Devnet with no RPC configured: the service runs its own local chain (DESIGN.md section 10). Its state
  // lives in the data dir, so it is locked like the embedded database: a second start fails at once
  // instead of running a second chain on the same state file.
  const ownsChain = config.env === 'devnet' && !config.chain.rpcUrl;
  let releaseChainLock = () => {};
  let devnetChain: DevnetChain | undefined;
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
  // A person at a terminal in devnet reads the log: readable lines there, JSON everywhere else.
  const pretty = config.env === 'devnet' && process.stdout.isTTY;
  const app = await buildApp(deps, pretty ? { logger: { stream: prettyLogStream() } } : {});
  if (deps.secrets.adminTokenCreated) {
    // Printed once, when generated; it stays in <data dir>/secrets/admin-token.
    console.log(
      `\nAdmin token (saved in ${config.dataDir}/secrets/admin-token):\n  ${deps.secrets.adminToken}\n`,
    );
  }
  await app.listen({ port: config.port, host: config.host }).catch(async (err: unknown) => {
    await closeDeps(deps).catch(() => {});
    await fail(err);
  });
  const side = await startSideServices(deps, app);
  const jobs = startJobs(deps, backgroundJobs, app.log);

  const shutdown = async (signal: string) => {
    app.log.info({ signal }, 'shutting down');
    await app.close();
    await jobs.stop();
    await side.stop();
    await closeDeps(deps);
    await devnetChain?.stop();
    releaseChainLock();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
