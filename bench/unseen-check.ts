// npx tsx bench/unseen-check.ts <dir> [<dir> …] — checks a catalogue written blind (bench/unseen/BRIEF.md)
// without ranking anything, so a sealed folder can be checked before it is committed: every provider is
// created through the admin API (the service's own validation), and every label of its queries names an
// endpoint of the catalogue. Prints the counts; exits 1 when anything fails.
import path from 'node:path';
import { BENCH_ADMIN, startBenchApp } from './bench-app.js';
import { loadDevSet } from './discovery-devset.js';

async function check(dir: string): Promise<boolean> {
  const { app, close } = await startBenchApp({ SVC_EMBEDDINGS: 'off' });
  try {
    const { providers, queries } = loadDevSet(dir);
    const endpoints = new Set<string>();
    let rejected = 0;
    for (const p of providers) {
      const res = await app.inject({
        method: 'POST',
        url: '/v1/admin/providers',
        headers: { authorization: `Bearer ${BENCH_ADMIN}` },
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
    await close();
  }
}

let ok = true;
for (const dir of process.argv.slice(2)) ok = (await check(path.resolve(dir))) && ok;
process.exit(ok ? 0 : 1);
