// Starting and stopping an anvil process from the npm package `@foundry-rs/anvil`. The binary ships in
// the platform package (`@foundry-rs/anvil-linux-amd64/bin/anvil`, an optional dependency that `npm ci`
// installs with its executable bit), so no install script is needed; we resolve it directly.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';

const PLATFORM_PACKAGES: Record<string, string> = {
  'linux-x64': '@foundry-rs/anvil-linux-amd64',
  'linux-arm64': '@foundry-rs/anvil-linux-arm64',
  'darwin-x64': '@foundry-rs/anvil-darwin-amd64',
  'darwin-arm64': '@foundry-rs/anvil-darwin-arm64',
  'win32-x64': '@foundry-rs/anvil-win32-amd64',
};

export function anvilBinary(): string {
  const pkg = PLATFORM_PACKAGES[`${process.platform}-${process.arch}`];
  if (!pkg) throw new Error(`anvil has no build for ${process.platform}-${process.arch}`);
  const require = createRequire(import.meta.url);
  const name = process.platform === 'win32' ? 'anvil.exe' : 'anvil';
  try {
    const binary = require.resolve(`${pkg}/bin/${name}`);
    if (existsSync(binary)) return binary;
  } catch {
    // fall through
  }
  throw new Error(`anvil binary not found: install dependencies with npm ci (${pkg} is required)`);
}

/** A free TCP port on loopback (bound and released; anvil binds it right after). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()));
    });
  });
}

export interface AnvilProcess {
  rpcUrl: string;
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

export interface AnvilOptions {
  port?: number;
  chainId?: number;
  /** State file loaded at start and written every `stateIntervalSeconds` and on exit. */
  statePath?: string;
  stateIntervalSeconds?: number;
}

export async function startAnvil(opts: AnvilOptions = {}): Promise<AnvilProcess> {
  const port = opts.port || (await freePort());
  const args = ['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(opts.chainId ?? 31337)];
  if (opts.statePath) {
    args.push('--state', opts.statePath, '--state-interval', String(opts.stateIntervalSeconds ?? 5));
  }
  const child = spawn(anvilBinary(), args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // If this process exits without stop() (an error at start, process.exit), anvil must not outlive it.
  const onParentExit = () => child.kill('SIGINT');
  process.once('exit', onParentExit);
  void exited.then(() => process.off('exit', onParentExit));
  const rpcUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`anvil exited (${child.exitCode}): ${stderr.trim()}`);
    try {
      const res = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      });
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`anvil did not answer on ${rpcUrl} within 30 s: ${stderr.trim()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    rpcUrl,
    port,
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      // SIGINT: anvil writes its state file on the way out.
      child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
