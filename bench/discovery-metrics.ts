// Ranking metrics for the discovery benchmark (graded labels, see ../shared/discovery/README.md).

export type Labels = Record<string, number>;

/** nDCG@k with gains 2^grade - 1 and the ideal ranking taken from the labels. */
export function ndcgAt(ranked: string[], labels: Labels, k = 10): number {
  const gain = (g: number) => 2 ** g - 1;
  let dcg = 0;
  ranked.slice(0, k).forEach((key, i) => {
    dcg += gain(labels[key] ?? 0) / Math.log2(i + 2);
  });
  const ideal = Object.values(labels)
    .sort((a, b) => b - a)
    .slice(0, k)
    .reduce((s, g, i) => s + gain(g) / Math.log2(i + 2), 0);
  return ideal > 0 ? dcg / ideal : 0;
}

/** Share of the grade >= 2 endpoints found in the top k. */
export function recallAt(ranked: string[], labels: Labels, k = 10): number {
  const relevant = Object.entries(labels).filter(([, g]) => g >= 2);
  if (relevant.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return relevant.filter(([key]) => top.has(key)).length / relevant.length;
}

/** Reciprocal rank of the first grade >= 2 endpoint. */
export function reciprocalRank(ranked: string[], labels: Labels): number {
  const i = ranked.findIndex((key) => (labels[key] ?? 0) >= 2);
  return i < 0 ? 0 : 1 / (i + 1);
}

export interface DevQuery {
  id: string;
  query: string;
  filters?: Record<string, unknown>;
  relevant: Labels;
}

export interface DevProvider {
  provider_id: string;
  name: string;
  description: string;
  category: string;
  website?: string;
  tags?: string[];
  endpoints: Array<{
    slug: string;
    method: string;
    description: string;
    tags?: string[];
    parameters: Record<string, { type?: string; required?: boolean; description?: string }>;
    response_schema?: Record<string, unknown>;
    pricing: { model: string; price_per_call_usdc: string };
  }>;
}
