// Test-only crash points: crash-safety tests start a real service process with SVC_TEST_CRASH_AT=<name>
// and it kills itself (SIGKILL: no cleanup, no flush) when it reaches that point, between two writes
// whose order the recovery relies on. Refused in production by src/config.ts; a no-op when unset.
export function crashPoint(config: { testCrashAt: string | undefined }, name: string): void {
  if (config.testCrashAt === name) process.kill(process.pid, 'SIGKILL');
}
