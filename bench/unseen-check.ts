// npx tsx bench/unseen-check.ts <dir> [<dir> …] — checks a catalogue written blind (bench/unseen/BRIEF.md)
// without ranking anything, so a sealed folder can be checked before it is committed: every provider is
// created through the admin API (the service's own validation), and every label of its queries names an
// endpoint of the catalogue. Prints the counts; exits 1 when anything fails.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { closeDeps, createDeps } from '../src/deps.js';
import { loadDevSet } from './discovery-devset.js';

const ADMIN = 'unseen-check-admin-token-0123456789';

async function check(dir: string): Promise<boolean> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-unseen-check-'));
  const config = loadConfig({
    SVC_ENV: 'devnet',
    SVC_DATA_DIR: dataDir,
    SVC_ADMIN_TOKEN: ADMIN,
    SVC_ENCRYPTION_KEY: 'b'.repeat(64),
    SVC_SAMPLE_PROVIDERS: 'off',
    SVC_EMBEDDINGS: 'off',
    LOG_LEVEL: 'silent',
  });
  const deps = await createDeps(config, { inMemoryDb: true });
  const app = await buildApp(deps, { logger: false });
  try {
    await app.ready();
    const { providers, queries } = loadDevSet(dir);
    const endpoints = new Set<string>();
    let rejected = 0;
    for (const p of providers) {
      const res = await app.inject({
        method: 'POST',
        url: '/v1/admin/providers',
        headers: { authorization: `Bearer ${ADMIN}` },
        payload: { ...p, base_url: 'http://127.0.0.1:9' },
      });
      if (res.statusCode !== 201) {
        rejected++;
        console.log(`  ${p.provider_id}: ${res.statusCode} ${res.body.slice(0, 300)}`);
      }
      for (const e of p.endpoints) endpoints.add(`${p.provider_id}/${e.slug}`);
    }
    let missing = 0;
    for (const q of queries)
      for (const key of Object.keys(q.relevant ?? {}))
        if (!endpoints.has(key)) {
          missing++;
          console.log(`  ${q.id}: label ${key} names no endpoint`);
        }
    const answerable = queries.filter((q) => Object.keys(q.relevant ?? {}).length > 0).length;
    console.log(
      `${path.basename(dir)}: ${providers.length} providers, ${endpoints.size} endpoints, ${queries.length} queries ` +
        `(${answerable} answerable); ${rejected} providers rejected, ${missing} labels naming no endpoint`,
    );
    return rejected === 0 && missing === 0;
  } finally {
    await app.close();
    await closeDeps(deps);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

let ok = true;
for (const dir of process.argv.slice(2)) ok = (await check(path.resolve(dir))) && ok;
process.exit(ok ? 0 : 1);
