// GET /discovery/resources: every endpoint as an x402 resource, in the Bazaar listing shape
// (`{x402Version, items, pagination}`), with the same requirements its 402 answer offers.
import { sql } from 'drizzle-orm';
import { rows, toIso } from '../../db/index.js';
import type { AppDeps } from '../../deps.js';
import { liveProvider } from '../catalog/index.js';
import { parametersToSchema } from '../execution/index.js';
import { requirementsFor } from './protocol.js';
import type { X402Runtime } from './runtime.js';

interface ResourceRow {
  provider_id: string;
  slug: string;
  description: string;
  parameters: unknown;
  response_schema: unknown;
  price_credits: bigint | string;
  timeout_ms: number;
  updated_at: Date | string;
  total: bigint | string;
}

export async function listResources(
  deps: AppDeps,
  rt: X402Runtime,
  publicUrl: string,
  limit: number,
  offset: number,
) {
  const terms = await rt.terms();
  const found = await rows<ResourceRow>(
    deps.db.orm,
    sql`SELECT e.provider_id, e.slug, coalesce(nullif(e.description, ''), p.name) AS description, e.parameters,
               e.response_schema, e.price_credits, e.timeout_ms, p.updated_at, count(*) OVER () AS total
        FROM endpoints e JOIN providers p ON p.id = e.provider_id
        WHERE ${liveProvider('p')}
        ORDER BY e.provider_id, e.position, e.slug
        LIMIT ${limit} OFFSET ${offset}`,
  );
  let total = found[0] ? Number(found[0].total) : 0;
  if (found.length === 0 && offset > 0) {
    const counted = await rows<{ n: bigint | string }>(
      deps.db.orm,
      sql`SELECT count(*) AS n FROM endpoints e JOIN providers p ON p.id = e.provider_id WHERE ${liveProvider('p')}`,
    );
    total = Number(counted[0]?.n ?? 0);
  }
  return {
    x402Version: 2,
    items: found.map((r) => ({
      resource: `${publicUrl}/x402/${encodeURIComponent(r.provider_id)}/${encodeURIComponent(r.slug)}`,
      type: 'http',
      x402Version: 2,
      accepts: [requirementsFor(terms, BigInt(r.price_credits), Number(r.timeout_ms))],
      lastUpdated: toIso(r.updated_at),
      metadata: {
        description: r.description,
        input: {
          type: 'http',
          method: 'POST',
          bodyType: 'json',
          bodyFields: parametersToSchema(r.parameters),
        },
        output: r.response_schema ?? null,
      },
    })),
    pagination: { limit, offset, total },
  };
}
