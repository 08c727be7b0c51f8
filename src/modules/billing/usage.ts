// Usage from the call log (docs/billing.md): spend is net of refunds (a refunded call costs
// nothing), days are UTC, `from`/`to` inclusive. The CSV export streams keyset pages from the database.
import { Readable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { rows, toIso } from '../../db/index.js';
import type { AppDeps } from '../../deps.js';
import { utcDay } from '../../lib/clock.js';
import { creditsToUsdc } from '../../lib/money.js';
import { DAY_MS, invalid, parseDay } from './dates.js';

export const DEFAULT_USAGE_DAYS = 30;
export const MAX_USAGE_DAYS = 366;

export interface DayRange {
  from: Date;
  to: Date;
  /** Exclusive upper instant: midnight after `to`. */
  end: Date;
}

/** Validates from/to (YYYY-MM-DD, inclusive); default: the last 30 days up to today (UTC). */
export function usageRange(now: Date, fromRaw?: string, toRaw?: string): DayRange {
  const to = toRaw === undefined ? parseDay(utcDay(now), 'query.to') : parseDay(toRaw, 'query.to');
  const from =
    fromRaw === undefined
      ? new Date(to.getTime() - (DEFAULT_USAGE_DAYS - 1) * DAY_MS)
      : parseDay(fromRaw, 'query.from');
  if (from > to) throw invalid('query.from', 'must not be after query.to');
  const days = (to.getTime() - from.getTime()) / DAY_MS + 1;
  if (days > MAX_USAGE_DAYS) throw invalid('query.from', `range must not exceed ${MAX_USAGE_DAYS} days`);
  return { from, to, end: new Date(to.getTime() + DAY_MS) };
}

interface Aggregate {
  day: string;
  provider_id: string;
  provider_name: string | null;
  credits: bigint;
  calls: bigint;
}

async function aggregate(deps: AppDeps, accountId: string, r: DayRange): Promise<Aggregate[]> {
  return rows<Aggregate>(
    deps.db.orm,
    sql`SELECT (c.created_at AT TIME ZONE 'UTC')::date::text AS day, c.provider_id, max(p.name) AS provider_name,
               coalesce(sum(c.price_credits) FILTER (WHERE NOT c.refunded), 0)::bigint AS credits,
               count(*)::bigint AS calls
        FROM calls c LEFT JOIN providers p ON p.id = c.provider_id
        WHERE c.account_id = ${accountId} AND c.created_at >= ${r.from.toISOString()}
          AND c.created_at < ${r.end.toISOString()}
        GROUP BY 1, 2`,
  );
}

function summaryOf(aggs: Aggregate[], r: DayRange) {
  let credits = 0n;
  let calls = 0n;
  for (const a of aggs) {
    credits += a.credits;
    calls += a.calls;
  }
  return {
    totalCreditsSpent: credits.toString(),
    totalUsdcSpent: creditsToUsdc(credits),
    totalCalls: Number(calls),
    dateRange: { from: utcDay(r.from), to: utcDay(r.to) },
  };
}

interface ProviderTotal {
  providerId: string;
  providerName: string;
  credits: bigint;
  calls: bigint;
}

function byProvider(aggs: Aggregate[]): ProviderTotal[] {
  const map = new Map<string, ProviderTotal>();
  for (const a of aggs) {
    const t = map.get(a.provider_id) ?? {
      providerId: a.provider_id,
      // A deleted provider keeps its history under its id.
      providerName: a.provider_name ?? a.provider_id,
      credits: 0n,
      calls: 0n,
    };
    t.credits += a.credits;
    t.calls += a.calls;
    map.set(a.provider_id, t);
  }
  return [...map.values()].sort((x, y) =>
    x.credits === y.credits ? x.providerId.localeCompare(y.providerId) : x.credits > y.credits ? -1 : 1,
  );
}

export async function usageByDay(deps: AppDeps, accountId: string, r: DayRange) {
  const aggs = await aggregate(deps, accountId, r);
  const daily = [];
  for (let t = r.from.getTime(); t <= r.to.getTime(); t += DAY_MS) {
    const day = utcDay(new Date(t));
    const providers = byProvider(aggs.filter((a) => a.day === day));
    const credits = providers.reduce((s, p) => s + p.credits, 0n);
    daily.push({
      date: day,
      creditsSpent: credits.toString(),
      usdcSpent: creditsToUsdc(credits),
      callCount: Number(providers.reduce((s, p) => s + p.calls, 0n)),
      providerBreakdown: providers.map((p) => ({
        providerId: p.providerId,
        providerName: p.providerName,
        creditsSpent: p.credits.toString(),
        callCount: Number(p.calls),
      })),
    });
  }
  return { summary: summaryOf(aggs, r), daily };
}

export async function usageByProvider(deps: AppDeps, accountId: string, r: DayRange) {
  const aggs = await aggregate(deps, accountId, r);
  return {
    summary: summaryOf(aggs, r),
    providers: byProvider(aggs).map((p) => ({
      providerId: p.providerId,
      providerName: p.providerName,
      creditsSpent: p.credits.toString(),
      usdcSpent: creditsToUsdc(p.credits),
      callCount: Number(p.calls),
    })),
  };
}

export const CSV_COLUMNS = [
  'timestamp',
  'call_id',
  'provider_id',
  'endpoint_slug',
  'credits_charged',
  'usdc_charged',
  'outcome',
  'provider_status',
  'latency_ms',
] as const;

/** RFC 4180: quote a field holding a comma, quote, CR or LF; double the quotes inside. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** One exported call as the database sends it: a JSON array (see usageCsvStream for why). */
type ExportTuple = [
  id: string,
  createdAt: string,
  providerId: string,
  endpointSlug: string,
  priceCredits: string,
  refunded: boolean,
  status: string,
  providerStatus: number | null,
  latencyMs: number | null,
];

export const EXPORT_PAGE_ROWS = 5000;

/**
 * Settled calls of the range, oldest first, as CSV lines. Keyset pages of EXPORT_PAGE_ROWS rows keep
 * memory constant whatever the size; pending calls (outcome not known yet) are left out.
 */
export function usageCsvStream(deps: AppDeps, accountId: string, r: DayRange): Readable {
  async function* lines() {
    yield `${CSV_COLUMNS.join(',')}\r\n`;
    let after: { ts: string; id: string } | undefined;
    for (;;) {
      // One JSON text column per row: the embedded driver decodes each column separately, so a single
      // column is about three times cheaper than nine; credits travel as text, never as a JS number.
      const page = await rows<{ j: string }>(
        deps.db.orm,
        sql`SELECT json_build_array(id, created_at::text, provider_id, endpoint_slug, price_credits::text,
                                    refunded, status, provider_status, latency_ms)::text AS j
            FROM calls
            WHERE account_id = ${accountId} AND status <> 'pending'
              AND created_at >= ${r.from.toISOString()} AND created_at < ${r.end.toISOString()}
              ${after ? sql`AND (created_at, id) > (${after.ts}::timestamptz, ${after.id})` : sql``}
            ORDER BY created_at, id LIMIT ${EXPORT_PAGE_ROWS}`,
      );
      if (page.length === 0) return;
      let chunk = '';
      let last: ExportTuple | undefined;
      for (const { j } of page) {
        const c = JSON.parse(j) as ExportTuple;
        const [id, createdAt, providerId, slug, price, refunded, status, providerStatus, latencyMs] = c;
        const charged = refunded ? 0n : BigInt(price);
        chunk += `${[
          toIso(createdAt),
          id,
          providerId,
          slug,
          charged.toString(),
          creditsToUsdc(charged),
          status,
          providerStatus === null ? '' : String(providerStatus),
          latencyMs === null ? '' : String(latencyMs),
        ]
          .map(csvField)
          .join(',')}\r\n`;
        last = c;
      }
      yield chunk;
      if (!last || page.length < EXPORT_PAGE_ROWS) return;
      after = { ts: last[1], id: last[0] };
    }
  }
  return Readable.from(lines());
}
