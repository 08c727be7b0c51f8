// The cluster primary (SVC_WORKERS > 1): forks the HTTP workers, which share the listening port through
// node:cluster, and does nothing else on the request path. What must happen once (migrations, generated
// secrets, the devnet chain) is done by the primary before it forks (src/server.ts).
//
// Guarantees, and why they hold with N workers: every worker is a full instance on the same PostgreSQL
// and Redis, exactly like N instances behind a load balancer — money moves in single SQL statements,
// idempotency and rate-limit counters live in the database and Redis, and in-process caches either hold
// immutable facts (API key → account) or expire within seconds (docs/performance.md). Background jobs
// are safe on N instances; still, one worker (the "lead") runs them and the side services, so a cluster
// of N does not poll N times. A worker that dies is replaced (the lead by a new lead); SIGTERM or SIGINT
// stops every worker cleanly (each closes its server, drains, closes its pools), then the primary.
import cluster, { type Worker } from 'node:cluster';

export interface ClusterOptions {
  workers: number;
  /** Environment added to every worker (e.g. the primary's devnet chain). */
  workerEnv: Record<string, string>;
  /** Whether the lead worker runs the background jobs (SVC_RUN_JOBS of the primary). */
  runJobs: boolean;
  /** Called once every worker has exited on shutdown (stops the devnet chain). */
  onStopped(): Promise<void>;
}

/** A worker that exits on its own is replaced, unless they keep dying: then the service stops. */
const RESTARTS_PER_MINUTE = 10;
/** How long workers get to drain on shutdown before they are killed. */
const SHUTDOWN_GRACE_MS = 30_000;

export async function runClusterPrimary(opts: ClusterOptions): Promise<void> {
  let shuttingDown = false;
  let leadId: number | undefined;
  const restarts: number[] = [];
  const say = (msg: string) => console.log(`[primary ${process.pid}] ${msg}`);

  const fork = (lead: boolean): Worker => {
    const worker = cluster.fork({
      ...opts.workerEnv,
      SVC_WORKERS: String(opts.workers),
      SVC_RUN_JOBS: lead && opts.runJobs ? 'on' : 'off',
    });
    if (lead) leadId = worker.id;
    let listening = false;
    worker.once('listening', () => {
      listening = true;
    });
    worker.once('exit', (code, signal) => {
      if (shuttingDown) return;
      if (!listening) {
        // It could not start (busy port, database unreachable): its own message is above; so will the next.
        say(`worker ${worker.process.pid} failed to start (exit ${code ?? signal}); stopping`);
        void stop(1);
        return;
      }
      const now = Date.now();
      restarts.push(now);
      while ((restarts[0] ?? now) < now - 60_000) restarts.shift();
      if (restarts.length > RESTARTS_PER_MINUTE) {
        say(`workers keep exiting (${restarts.length} in a minute); stopping`);
        void stop(1);
        return;
      }
      say(`worker ${worker.process.pid} exited (${code ?? signal}); starting another`);
      fork(worker.id === leadId);
    });
    return worker;
  };

  const stop = async (exitCode: number) => {
    if (shuttingDown) return;
    shuttingDown = true;
    const alive = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
    const exited = alive.map((w) => new Promise<void>((resolve) => w.once('exit', () => resolve())));
    for (const w of alive) w.process.kill('SIGTERM');
    const timer = setTimeout(() => {
      for (const w of alive) if (!w.isDead()) w.process.kill('SIGKILL');
    }, SHUTDOWN_GRACE_MS);
    await Promise.all(exited);
    clearTimeout(timer);
    await opts.onStopped();
    process.exit(exitCode);
  };

  process.once('SIGINT', () => void stop(0));
  process.once('SIGTERM', () => void stop(0));
  for (let i = 0; i < opts.workers; i++) fork(i === 0);
  say(`${opts.workers} workers started`);
}
