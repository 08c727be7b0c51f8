// Plain BM25 over each endpoint's texts (one field, lowercase words, no stemming): the reference every
// ranking figure is read against (issue 22 quotes it on the held-out catalogue).
import MiniSearch from 'minisearch';
import type { IndexedEndpoint } from '../src/modules/discovery/ranking/types.js';

/** Ranks a catalogue's endpoints for a query: their positions in `catalogue`, best first. */
export function plainBm25(catalogue: IndexedEndpoint[]) {
  const mini = new MiniSearch<{ id: number; text: string }>({ fields: ['text'] });
  mini.addAll(
    catalogue.map((e, id) => ({
      id,
      text: [
        e.slug,
        e.description,
        e.tags.join(' '),
        e.providerName,
        e.providerDescription,
        e.providerTags.join(' '),
        e.category,
        ...Object.entries(e.parameters).map(([k, p]) => `${k} ${p.description ?? ''}`),
      ].join(' '),
    })),
  );
  return (query: string, allowed: (i: number) => boolean): number[] =>
    mini
      .search(query)
      .map((r) => r.id as number)
      .filter(allowed);
}
