// The catalogue and the code stay in sync: every code the source uses is catalogued, and every catalogued
// code is used somewhere.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERRORS } from '../../src/errors/catalogue.js';

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
    const unused = Object.keys(ERRORS).filter((code) => !used.has(code));
    expect(unused).toEqual([]);
  });

  it('uses shape B exactly for the SVC-CREDIT codes', () => {
    for (const [code, spec] of Object.entries(ERRORS)) {
      expect(spec.shape, code).toBe(code.startsWith('SVC-CREDIT-') ? 'B' : 'A');
    }
  });
});
