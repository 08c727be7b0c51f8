// The benchmark's provider in its own process (like a real provider): answers /echo at once and
// prints `{"url": "..."}` once listening.
import { startProviderServer } from '../test/helpers/providers.js';

const server = await startProviderServer({ record: false });
process.stdout.write(`${JSON.stringify({ url: server.url, pid: process.pid })}\n`);
process.once('SIGTERM', () => {
  void server.close().finally(() => process.exit(0));
});
