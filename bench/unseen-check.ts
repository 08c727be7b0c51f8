// npx tsx bench/unseen-check.ts <dir> [<dir> …] — checks a catalogue written blind (bench/unseen/BRIEF.md)
// without ranking anything, so a sealed folder can be checked before it is committed: every provider is
// created through the admin API (the service's own validation), and every label of its queries names an
// endpoint of the catalogue. Prints the counts; exits 1 when anything fails.
import path from 'node:path';
import { createProviders, startBenchApp } from './bench-app.js';
import { loadDevSet } from './discovery-devset.js';

async function check(dir: string): Promise<boolean> {
  const { app, close } = await startBenchApp({ SVC_EMBEDDINGS: 'off' });
  try {
    const { providers, queries } = loadDevSet(dir);
    const refused = await createProviders(app, providers);
    for (const line of refused) console.log(`  ${line.slice(0, 300)}`);
    const endpoints = new Set(providers.flatMap((p) => p.endpoints.map((e) => `${p.provider_id}/${e.slug}`)));
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
        `(${answerable} answerable); ${refused.length} providers rejected, ${missing} labels naming no endpoint`,
    );
    return refused.length === 0 && missing === 0;
  } finally {
    await close();
  }
}

let ok = true;
for (const dir of process.argv.slice(2)) ok = (await check(path.resolve(dir))) && ok;
process.exit(ok ? 0 : 1);
