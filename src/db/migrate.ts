// Applies the committed SQL files in migrations/ in name order, each once, in one transaction under an
// advisory lock, so that several instances starting together migrate exactly once.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database } from './index.js';

export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');
const LOCK_ID = 727_001;

export async function migrate(db: Database, dir = MIGRATIONS_DIR): Promise<string[]> {
  const files = readdirSync(dir)
    .filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f))
    .sort();
  return db.scriptTransaction(async (exec) => {
    await exec(`SELECT pg_advisory_xact_lock(${LOCK_ID})`);
    await exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set((await exec('SELECT name FROM schema_migrations')).map((r) => String(r.name)));
    const applied: string[] = [];
    for (const file of files) {
      if (done.has(file)) continue;
      await exec(readFileSync(path.join(dir, file), 'utf8'));
      await exec(`INSERT INTO schema_migrations (name) VALUES ('${file}')`);
      applied.push(file);
    }
    return applied;
  });
}
