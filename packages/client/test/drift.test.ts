// The client's generated types must match what the service documents today: regenerate from a freshly
// built app's /docs-json and compare with the committed file. On failure run `npm run generate:client`
// against a running service and commit the result.
import { readFileSync } from 'node:fs';
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
  expect(fresh === readFileSync(GENERATED_TYPES_PATH, 'utf8'), 'src/generated/openapi.ts is stale').toBe(
    true,
  );
});
