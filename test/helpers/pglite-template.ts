// A migrated PGlite dump shared by every test app of a run: starting from it takes well under a second,
// where initdb + migrations take several. Made once per run by global-setup.ts (keyed by the migrations'
// content, so a changed migration makes a new one) and loaded by each worker.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../src/db/index.js';
import { MIGRATIONS_DIR, migrate } from '../../src/db/migrate.js';

function templatePath(): string {
  const hash = createHash('sha256');
  for (const f of readdirSync(MIGRATIONS_DIR).sort()) {
    hash.update(f).update(readFileSync(path.join(MIGRATIONS_DIR, f)));
  }
  return path.join(os.tmpdir(), `svc-pglite-template-${hash.digest('hex').slice(0, 16)}.tar`);
}

export async function ensurePgliteTemplate(): Promise<string> {
  const file = templatePath();
  if (existsSync(file)) return file;
  const db = await openDatabase({});
  await migrate(db);
  const dump = await db.dumpForTemplate?.();
  await db.close();
  if (!dump) throw new Error('PGlite dump unavailable');
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
  renameSync(tmp, file);
  return file;
}

let cached: Promise<Blob> | undefined;

export function loadPgliteTemplate(): Promise<Blob> {
  cached ??= ensurePgliteTemplate().then((file) => new Blob([readFileSync(file)]));
  return cached;
}
