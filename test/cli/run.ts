// Runs the `svc` CLI as a user does: a real process (bin/svc.mjs), asynchronously, so the service under
// test keeps answering in this process meanwhile.
import { execFile } from 'node:child_process';
import path from 'node:path';

const BIN = path.resolve('bin/svc.mjs');
/** Each command is a fresh Node process compiling TypeScript: seconds each on a busy machine. */
export const CLI_TEST_TIMEOUT = 240_000;

export function runSvc(args: string[], env: Record<string, string>, timeoutMs = 60_000) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { ...process.env, SVC_API_KEY: '', ...env }, timeout: timeoutMs },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
