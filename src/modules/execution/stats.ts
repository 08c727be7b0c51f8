// Quality metrics (docs/execution.md) recomputed from the call log by a periodic job, so
// the hot path writes nothing extra: over the trailing 24 hours uptime_pct = non-5xx share (timeouts and
// connection failures count as 5xx), error_rate_pct = 4xx + 5xx + timeouts share, avg_latency_ms =
// provider latency; total_calls = lifetime settled calls. Calls swept after our own crash are left out.
import { sql } from 'drizzle-orm';
import { rows } from '../../db/index.js';
import type { AppDeps } from '../../deps.js';
import type { BackgroundJob } from '../../jobs/runner.js';

const WINDOW_MS = 24 * 3600_000;

/** Recomputes endpoint_stats for every endpoint with a call in the window (or a stats row). */
export async function refreshEndpointStats(deps: AppDeps): Promise<number> {
  const now = deps.clock.now();
  const since = new Date(now.getTime() - WINDOW_MS).toISOString();
  const updated = await rows<{ provider_id: string }>(
    deps.db.orm,
    sql`WITH active AS (
          SELECT DISTINCT provider_id, endpoint_slug FROM calls WHERE created_at >= ${since}
          UNION SELECT provider_id, endpoint_slug FROM endpoint_stats
        ), windowed AS (
          SELECT c.provider_id, c.endpoint_slug, count(*) AS n,
                 count(*) FILTER (WHERE c.status IN ('provider_error', 'timeout')) AS failed,
                 count(*) FILTER (WHERE c.status = 'client_error') AS client_errors,
                 avg(c.latency_ms) AS latency
          FROM calls c
          WHERE c.created_at >= ${since} AND c.status <> 'pending' AND c.refund_reason IS DISTINCT FROM 'abandoned'
          GROUP BY c.provider_id, c.endpoint_slug
        ), lifetime AS (
          SELECT c.provider_id, c.endpoint_slug, count(*) AS total
          FROM calls c JOIN active a USING (provider_id, endpoint_slug)
          WHERE c.status <> 'pending' AND c.refund_reason IS DISTINCT FROM 'abandoned'
          GROUP BY c.provider_id, c.endpoint_slug
        )
        INSERT INTO endpoint_stats AS s (provider_id, endpoint_slug, uptime_pct, avg_latency_ms, error_rate_pct,
                                         total_calls, updated_at)
        SELECT a.provider_id, a.endpoint_slug,
               CASE WHEN coalesce(w.n, 0) = 0 THEN 100 ELSE 100.0 * (w.n - w.failed) / w.n END,
               coalesce(w.latency, 0),
               CASE WHEN coalesce(w.n, 0) = 0 THEN 0 ELSE 100.0 * (w.failed + w.client_errors) / w.n END,
               coalesce(l.total, 0), ${now.toISOString()}
        FROM active a
        LEFT JOIN windowed w USING (provider_id, endpoint_slug)
        LEFT JOIN lifetime l USING (provider_id, endpoint_slug)
        ON CONFLICT (provider_id, endpoint_slug) DO UPDATE SET
          uptime_pct = excluded.uptime_pct,
          -- With no call in the window the last known latency is kept rather than shown as 0 ms.
          avg_latency_ms = CASE WHEN excluded.avg_latency_ms = 0 THEN s.avg_latency_ms ELSE excluded.avg_latency_ms END,
          error_rate_pct = excluded.error_rate_pct,
          total_calls = excluded.total_calls,
          updated_at = excluded.updated_at
        RETURNING s.provider_id`,
  );
  return updated.length;
}

export const refreshEndpointStatsJob: BackgroundJob = {
  name: 'execution.refresh-endpoint-stats',
  intervalMs: 10_000,
  // Runs every 10 s on every instance; not worth a log line each time.
  run: async (deps) => {
    await refreshEndpointStats(deps);
    return undefined;
  },
};
