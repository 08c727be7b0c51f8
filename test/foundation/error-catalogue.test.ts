// The catalogue and the code stay in sync: every code the source uses is catalogued, and every catalogued
// code is used somewhere (except the on-chain deposit codes reserved for POST /v1/wallet/deposit, which
// is not built yet — see docs/decisions.md).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERRORS } from '../../src/errors/catalogue.js';

const RESERVED_UNTIL_DEPOSITS = ['SVC-PAY-002', 'SVC-PAY-003', 'SVC-PAY-004', 'SVC-PAY-005', 'SVC-PAY-006'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return full.endsWith('.ts') && !full.endsWith(path.join('errors', 'catalogue.ts')) ? [full] : [];
  });
}

const used = new Set<string>();
for (const file of sourceFiles(path.resolve('src'))) {
  for (const m of readFileSync(file, 'utf8').matchAll(/'(SVC-[A-Z]+-\d{3})'/g)) used.add(m[1] as string);
}

describe('error catalogue', () => {
  it('lists every code the source throws', () => {
    const missing = [...used].filter((code) => !(code in ERRORS));
    expect(missing).toEqual([]);
  });

  it('has no code that nobody throws', () => {
    const unused = Object.keys(ERRORS).filter(
      (code) => !used.has(code) && !RESERVED_UNTIL_DEPOSITS.includes(code),
    );
    expect(unused).toEqual([]);
  });

  it('uses shape B exactly for the SVC-CREDIT codes', () => {
    for (const [code, spec] of Object.entries(ERRORS)) {
      expect(spec.shape, code).toBe(code.startsWith('SVC-CREDIT-') ? 'B' : 'A');
    }
  });
});
