// Starts test/helpers/service-process.ts (a real service process) with `env` and resolves with it and its
// port once it listens. Crash tests SIGKILL it (or let it kill itself at a crash point).
import { type ChildProcess, spawn } from 'node:child_process';

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
