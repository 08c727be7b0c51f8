// Catalogue browser: natural-language search (POST /v1/discover) or the provider list (GET /v1/providers).
import { api } from '../api.js';
import { field, h } from '../dom.js';
import { usdc } from '../format.js';
import type { Page } from '../main.js';
import { empty, errorBox, loading, pageTitle } from '../ui.js';

interface DiscoverResult {
  provider_id: string;
  provider_name: string;
  endpoint_slug: string;
  description: string;
  category: string;
  pricing: { price_per_call_usdc: string };
  quality: { uptime_pct: number; avg_latency_ms: number };
  endpoint: { method: string };
}
interface ProviderView {
  id: string;
  name: string;
  description?: string;
  category?: string;
}

export const catalogPage: Page = {
  path: 'catalog',
  title: 'Catalogue',
  async render(main) {
    main.append(
      ...pageTitle('Catalogue', 'Describe what you need; the service ranks the endpoints that fit.'),
    );
    const query = h('input', {
      type: 'search',
      name: 'q',
      maxlength: 2000,
      placeholder: 'e.g. current weather for a city',
    });
    const results = h('div', { 'aria-live': 'polite' });
    const form = h(
      'form',
      { class: 'filters', role: 'search' },
      field('Search the catalogue', query),
      h('button', { type: 'submit' }, 'Search'),
    );

    const search = async () => {
      results.replaceChildren(loading('results'));
      try {
        const { results: found } = await api<{ results: DiscoverResult[] }>('POST', '/v1/discover', {
          query: query.value.trim(),
          limit: 20,
        });
        results.replaceChildren(
          found.length === 0
            ? empty('No endpoint matches. Try other words.')
            : h(
                'ul',
                { class: 'cards' },
                ...found.map((r) =>
                  h(
                    'li',
                    { class: 'card' },
                    h('h3', {}, `${r.provider_name} · ${r.endpoint_slug}`),
                    h('p', {}, r.description),
                    h(
                      'p',
                      { class: 'meta' },
                      `${r.endpoint.method} /v1/execute/${r.provider_id}/${r.endpoint_slug} · ${usdc(r.pricing.price_per_call_usdc)} a call · ${r.quality.uptime_pct}% up · ${Math.round(r.quality.avg_latency_ms)} ms`,
                    ),
                  ),
                ),
              ),
        );
      } catch (err) {
        results.replaceChildren(errorBox(err));
      }
    };
    const browse = async () => {
      results.replaceChildren(loading('providers'));
      try {
        const { data } = await api<{ data: ProviderView[] }>('GET', '/v1/providers?limit=50');
        results.replaceChildren(
          data.length === 0
            ? empty('No providers are listed yet.')
            : h(
                'ul',
                { class: 'cards' },
                ...data.map((p) =>
                  h(
                    'li',
                    { class: 'card' },
                    h('h3', {}, p.name),
                    p.description ? h('p', {}, p.description) : null,
                    h('p', { class: 'meta' }, `${p.id}${p.category ? ` · ${p.category}` : ''}`),
                  ),
                ),
              ),
        );
      } catch (err) {
        results.replaceChildren(errorBox(err));
      }
    };
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void (query.value.trim() ? search() : browse());
    });
    main.append(form, results);
    await browse();
  },
};
