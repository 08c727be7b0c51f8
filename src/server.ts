// Reads config, builds the app, listens. Nothing else.
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { closeDeps, createDeps } from './deps.js';
import { backgroundJobs } from './jobs/registry.js';
import { startJobs } from './jobs/runner.js';
import {
  assertChainNotBehindLedger,
  ChainBehindLedger,
  startDevnetChain,
  withDevnetChain,
} from './modules/chain/index.js';
import { startSideServices } from './side-services.js';

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
  // Devnet with no RPC configured: the service runs its own local chain (DESIGN.md section 10).
  const devnetChain =
    config.env === 'devnet' && !config.chain.rpcUrl
      ? await startDevnetChain(config, (msg) => console.log(msg))
      : undefined;
  if (devnetChain) config = withDevnetChain(config, devnetChain);
  const deps = await createDeps(config);
  try {
    await assertChainNotBehindLedger(deps);
  } catch (err) {
    await closeDeps(deps);
    await devnetChain?.stop();
    if (err instanceof ChainBehindLedger) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const app = await buildApp(deps);
  if (deps.secrets.adminTokenCreated) {
    // Printed once, when generated; it stays in <data dir>/secrets/admin-token.
    console.log(
      `\nAdmin token (saved in ${config.dataDir}/secrets/admin-token):\n  ${deps.secrets.adminToken}\n`,
    );
  }
  await app.listen({ port: config.port, host: config.host });
  const side = await startSideServices(deps, app);
  const jobs = startJobs(deps, backgroundJobs, app.log);

  const shutdown = async (signal: string) => {
    app.log.info({ signal }, 'shutting down');
    await app.close();
    await jobs.stop();
    await side.stop();
    await closeDeps(deps);
    await devnetChain?.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
