// Ids: prefixed, time-sortable, random part from a pooled CSPRNG buffer (src/lib/ids.ts).
import { describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';

describe('newId', () => {
  it('gives distinct, well-formed ids across many refills of the random pool', () => {
    const ids = Array.from({ length: 20_000 }, () => newId('call'));
    expect(new Set(ids).size).toBe(ids.length);
    // One assertion over all ids (an expect per id costs seconds for 20,000 ids).
    expect(ids.filter((id) => !/^call_[0-9a-hjkmnp-tv-z]{26}$/.test(id))).toEqual([]);
    // The random part differs even between ids made in the same millisecond.
    expect(new Set(ids.map((id) => id.slice(15))).size).toBe(ids.length);
  });

  it('sorts by creation time', async () => {
    const first = newId('txn');
    await new Promise((r) => setTimeout(r, 5));
    const second = newId('txn');
    // txn_ + 10 characters of time (ms)
    expect(first.slice(0, 15) < second.slice(0, 15)).toBe(true);
  });
});
