// Order boosts kept aligned with an index's slots (alignBoosts): after endpoints are replaced, added and
// removed, every slot holds its own endpoint's quality and boosts, and only changed slots are recomputed.
import { describe, expect, it } from 'vitest';
import { alignBoosts, orderScore } from '../../src/modules/discovery/ranking/order.js';
import type { IndexedEndpoint, QualityMetrics } from '../../src/modules/discovery/ranking/types.js';
import { indexedEndpoint } from './helpers.js';

const endpoint = (slug: string, priceCredits: bigint) => indexedEndpoint(slug, { priceCredits });

const quality = (slug: string): QualityMetrics => {
  const n = Number(slug.replace(/\D/g, '')) || 0;
  return { uptimePct: 90 + (n % 10), avgLatencyMs: 50 * n, errorRatePct: n % 7, totalCalls: 10 * n };
};

/** Every slot's boosts as computed from scratch. */
function expectAligned(slots: IndexedEndpoint[], aligned: ReturnType<typeof alignBoosts>) {
  expect(aligned.qualities).toHaveLength(slots.length);
  slots.forEach((e, i) => {
    expect(aligned.qualities[i]).toEqual(quality(e.slug));
    expect(aligned.boosts.withQuery[i]).toBe(orderScore(1, quality(e.slug), e.priceCredits));
    expect(aligned.boosts.filtersOnly[i]).toBe(orderScore(undefined, quality(e.slug), e.priceCredits));
  });
}

describe('alignBoosts', () => {
  it('recomputes only the slots whose endpoint changed, and stays equal to a full computation', () => {
    const slots = Array.from({ length: 30 }, (_, i) => endpoint(`e${i}`, BigInt(100 * (i + 1))));
    const looked: string[] = [];
    const qualityOf = (e: IndexedEndpoint) => {
      looked.push(e.slug);
      return quality(e.slug);
    };
    let aligned = alignBoosts(slots, qualityOf);
    expectAligned(slots, aligned);
    expect(looked).toHaveLength(30);

    // An update: slot 4 gets a new endpoint (a new price), slot 7 one with another slug.
    looked.length = 0;
    slots[4] = endpoint('e4', 5_000_000n);
    slots[7] = endpoint('e77', 100n);
    aligned = alignBoosts(slots, qualityOf, aligned);
    expect(looked).toEqual(['e4', 'e77']);
    expectAligned(slots, aligned);

    // More endpoints than the arrays hold: they grow, and keep what was computed.
    looked.length = 0;
    for (let i = 30; i < 100; i++) slots.push(endpoint(`e${i}`, 1_000n));
    aligned = alignBoosts(slots, qualityOf, aligned);
    expect(looked).toHaveLength(70);
    expectAligned(slots, aligned);

    // Fewer slots (a smaller index built beside): the arrays describe just those.
    slots.length = 50;
    aligned = alignBoosts(slots, qualityOf, aligned);
    expectAligned(slots, aligned);
  });
});
