// Starts test/helpers/service-process.ts (a real service process) with `env` and resolves with it and its
// port once it listens. Crash tests SIGKILL it (or let it kill itself at a crash point).
import { type ChildProcess, spawn } from 'node:child_process';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { type AppDeps, closeDeps, createDeps } from '../../src/deps.js';
import type { Clock } from '../../src/lib/clock.js';

export function startServiceProcess(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/service-process.ts'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr?.on('data', (d) => {
      err += String(d);
    });
    child.stdout?.on('data', (d) => {
      out += String(d);
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve({ child, port: JSON.parse(line).port });
    });
    child.on('exit', (code) => reject(new Error(`service process exited (${code}): ${err}`)));
  });
}

export interface ServiceInstance {
  deps: AppDeps;
  app: FastifyInstance;
  close(): Promise<void>;
}

/**
 * An in-process instance on the same database as a service child (PostgreSQL: the same schema; PGlite:
 * the same data dir, never at the same time as the child).
 */
export async function openServiceInstance(
  env: Record<string, string>,
  opts: { schema?: string | undefined; clock?: Clock } = {},
): Promise<ServiceInstance> {
  const deps = await createDeps(loadConfig(env), {
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.schema ? { dbSchema: opts.schema } : {}),
    poolSize: 4,
  });
  const app = await buildApp(deps, { logger: false });
  await app.ready();
  return {
    deps,
    app,
    async close() {
      await app.close();
      await closeDeps(deps);
    },
  };
}
