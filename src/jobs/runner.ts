// Periodic background jobs. Each job must be safe to run on N instances at once (use
// `FOR UPDATE SKIP LOCKED` or idempotent writes), so this runner needs no leader election.
import type { FastifyBaseLogger } from 'fastify';
import type { AppDeps } from '../deps.js';

export interface BackgroundJob {
  name: string;
  intervalMs: number;
  /** Returns the number of items processed (for logs); must not throw for expected conditions. */
  run(deps: AppDeps): Promise<number | undefined>;
}

export interface JobHandle {
  stop(): Promise<void>;
}

export function startJobs(deps: AppDeps, jobs: BackgroundJob[], log: FastifyBaseLogger): JobHandle {
  let stopped = false;
  const timers: NodeJS.Timeout[] = [];
  const running = new Set<Promise<unknown>>();
  for (const job of jobs) {
    const tick = () => {
      if (stopped) return;
      const p = job
        .run(deps)
        .then((n) => {
          if (n) log.info({ job: job.name, processed: n }, 'job ran');
        })
        .catch((err) => log.error({ err, job: job.name }, 'job failed'))
        .finally(() => {
          running.delete(p);
          if (!stopped) timers.push(setTimeout(tick, job.intervalMs).unref());
        });
      running.add(p);
    };
    timers.push(setTimeout(tick, Math.min(job.intervalMs, 1000)).unref());
  }
  return {
    async stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      await Promise.allSettled([...running]);
    },
  };
}
