// Named prepared statements for the hottest statement (the debit) on PostgreSQL: the server parses and
// plans it once per connection instead of on every call, which is worth ~40 % of its cost there
// (pgbench -M prepared vs simple on the same statement). PGlite runs the query through Drizzle as usual.
import { type SQL, sql } from 'drizzle-orm';
import { type Database, rows } from '../../db/index.js';

/** What Drizzle's node-postgres database carries besides its public API (both exist at runtime). */
interface PgBackedOrm {
  $client?: {
    query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
  };
  dialect?: { sqlToQuery(query: SQL): { sql: string; params: unknown[] } };
}

/**
 * Runs `query` as the prepared statement `name` (outside any transaction). The text behind one name must
 * never change: build it from a fixed template whose only variation is in the parameters.
 */
export async function preparedRows<T>(db: Database, name: string, query: SQL): Promise<T[]> {
  const orm = db.orm as unknown as PgBackedOrm;
  if (db.kind === 'postgres' && orm.$client && orm.dialect) {
    const q = orm.dialect.sqlToQuery(query);
    const result = await orm.$client.query({ name, text: q.sql, values: q.params });
    return result.rows as T[];
  }
  return rows<T>(db.orm, query);
}

/**
 * One array parameter per column for the fixed-text batch statements (`unnest($1::text[], ...)`):
 * `column((r) => r.id)` is the array of every item's id.
 */
export function columnsOf<T>(items: T[]) {
  return (pick: (item: T) => unknown) => sql.param(items.map(pick));
}
