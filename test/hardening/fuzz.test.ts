// A short, seeded run of the API fuzzer (bench/fuzz-core.ts; `npm run fuzz -- --runs 20000` for a long
// one): requests generated from /docs-json with hostile values never get a 5xx of ours, and the funded
// account's money moves only through the charging answers the fuzzer saw succeed.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FUZZ_ENV, type FuzzTarget, prepareTarget, runFuzz } from '../../bench/fuzz-core.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let target: FuzzTarget;
beforeAll(async () => {
  t = await createTestApp({ env: FUZZ_ENV });
  target = await prepareTarget(t);
});
afterAll(async () => {
  await target?.close();
  await t?.close();
});

it('answers 800 generated hostile requests without a 5xx of ours and without moving money', async () => {
  const result = await runFuzz(target, { runs: 800, seed: 20 });
  expect(result.failures).toEqual([]);
  expect(result.money.violations).toEqual([]);
  // The run reached the handlers, not only the validation: some calls were charged, some refused.
  expect(result.money.expected.debit ?? 0).toBeGreaterThan(0);
  expect(result.byStatus[400] ?? 0).toBeGreaterThan(0);
  expect(result.sent).toBe(800);
}, 90_000);
