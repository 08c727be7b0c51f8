// `npm run fuzz [-- --runs N --seed S]`: the API fuzzer (bench/fuzz-core.ts) against a real app on a
// fresh database (in-memory PGlite, or PostgreSQL + Redis when DATABASE_URL / REDIS_URL are set).
// Prints the requests sent, the answers by status and every failure; exits 1 on a failure.
import { parseArgs } from 'node:util';
import { createTestApp } from '../test/helpers/app.js';
import { FUZZ_ENV, prepareTarget, runFuzz } from './fuzz-core.js';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '2000' }, seed: { type: 'string' } },
});
const runs = Number(values.runs);
const seed = values.seed === undefined ? Date.now() % 1_000_000 : Number(values.seed);
const t = await createTestApp({ env: FUZZ_ENV });
const target = await prepareTarget(t);
const started = Date.now();
console.log(
  `fuzz: ${runs} requests, seed ${seed}, database ${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'}`,
);
const result = await runFuzz(target, {
  runs,
  seed,
  onProgress: (n) => {
    if (n % 2000 === 0) process.stdout.write(`  ${n} generated\n`);
  },
});
await target.close();
await t.close();
const byStatus = Object.entries(result.byStatus)
  .sort(([a], [b]) => Number(a) - Number(b))
  .map(([s, n]) => `${s}: ${n}`)
  .join(', ');
console.log(
  `sent ${result.sent} in ${((Date.now() - started) / 1000).toFixed(1)} s (unsendable ${result.unsendable})`,
);
console.log(`answers by status: ${byStatus}`);
if (process.env.FUZZ_BY_ROUTE) {
  for (const [k, n] of Object.entries(result.byRoute).sort()) console.log(`  ${k}: ${n}`);
}
console.log(`5xx not ours (provider fault, no chain RPC): ${result.notOurs}`);
console.log(`ledger entries of the funded account: ${JSON.stringify(result.money.entries)}`);
console.log(`successful charging answers seen:     ${JSON.stringify(result.money.expected)}`);
for (const f of result.failures.slice(0, 50)) console.log(`FAIL ${f.status} ${f.request}\n     → ${f.body}`);
for (const v of result.money.violations) console.log(`MONEY ${v}`);
const ok = result.failures.length === 0 && result.money.violations.length === 0;
console.log(
  ok
    ? 'fuzz: OK'
    : `fuzz: ${result.failures.length} failures, ${result.money.violations.length} money violations`,
);
process.exit(ok ? 0 : 1);
