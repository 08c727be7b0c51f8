// Regenerates src/generated/openapi.ts from a running service: `npm run generate:client [-- <base url>]`
// (default $SVC_URL, else http://localhost:8080).
import { writeFileSync } from 'node:fs';
import { GENERATED_TYPES_PATH, generateTypes } from './openapi-types.js';

const baseUrl = (process.argv[2] ?? process.env.SVC_URL ?? 'http://localhost:8080').replace(/\/+$/, '');
const response = await fetch(`${baseUrl}/docs-json`);
if (!response.ok) throw new Error(`GET ${baseUrl}/docs-json answered ${response.status}`);
writeFileSync(GENERATED_TYPES_PATH, await generateTypes(await response.json()));
console.log(`wrote ${GENERATED_TYPES_PATH.pathname}`);
