// The client's generated types must match what the service documents today: regenerate from a freshly
// built app's /docs-json and compare with the committed file. On failure run
// `UPDATE_CLIENT_TYPES=1 npx vitest run packages/client/test/drift.test.ts` (or `npm run generate:client`
// against a running service) and commit the result.
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { GENERATED_TYPES_PATH, generateTypes } from '../scripts/openapi-types.js';
import { type LiveService, startService } from './setup.js';

let svc: LiveService | undefined;
afterAll(async () => {
  await svc?.close();
});

it('has generated types identical to those of the running service', async () => {
  svc = await startService();
  const response = await fetch(`${svc.baseUrl}/docs-json`);
  expect(response.status).toBe(200);
  const fresh = await generateTypes(await response.json());
  expect(fresh.length).toBeGreaterThan(1000);
  if (process.env.UPDATE_CLIENT_TYPES) writeFileSync(GENERATED_TYPES_PATH, fresh);
  expect(fresh === readFileSync(GENERATED_TYPES_PATH, 'utf8'), 'src/generated/openapi.ts is stale').toBe(
    true,
  );
});
