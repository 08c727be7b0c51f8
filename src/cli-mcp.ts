// `svc mcp`: the stdio relay. Kept apart from src/cli.ts, whose imports (database, mailer, ...) the relay
// does not need: a desktop agent starts it on every launch, so it must start fast.
import { ConfigError, loadMcpBridgeConfig } from './config.js';
import { runStdioBridge } from './modules/mcp/index.js';

export async function runMcpCommand(): Promise<number> {
  let config: ReturnType<typeof loadMcpBridgeConfig>;
  try {
    config = loadMcpBridgeConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(`Configuration error: ${err.message}`);
    return 1;
  }
  await runStdioBridge(config);
  return 0;
}
