// Reads config, builds the app, listens. Nothing else.
import { buildApp } from './app.js';
import { ConfigError, loadConfig, startupErrorMessage } from './config.js';
import { closeDeps, createDeps } from './deps.js';
import { backgroundJobs } from './jobs/registry.js';
import { startJobs } from './jobs/runner.js';
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
  const fail = (err: unknown): never => {
    console.error(startupErrorMessage(err, config));
    // The stack only when asked for: it is noise for a busy port or a locked data dir.
    if (config.logLevel === 'debug' || config.logLevel === 'trace') console.error(err);
    process.exit(1);
  };
  const deps = await createDeps(config).catch(fail);
  const app = await buildApp(deps);
  if (deps.secrets.adminTokenCreated) {
    // Printed once, when generated; it stays in <data dir>/secrets/admin-token.
    console.log(
      `\nAdmin token (saved in ${config.dataDir}/secrets/admin-token):\n  ${deps.secrets.adminToken}\n`,
    );
  }
  await app.listen({ port: config.port, host: config.host }).catch(async (err: unknown) => {
    await closeDeps(deps).catch(() => {});
    fail(err);
  });
  const side = await startSideServices(deps, app);
  const jobs = startJobs(deps, backgroundJobs, app.log);

  const shutdown = async (signal: string) => {
    app.log.info({ signal }, 'shutting down');
    await app.close();
    await jobs.stop();
    await side.stop();
    await closeDeps(deps);
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
