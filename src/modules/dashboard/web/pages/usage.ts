// Usage by provider over a date range, with the CSV export (fetched with the session header, then saved
// from a blob: the token never goes into a link).
import { api, request } from '../api.js';
import { field, h, table } from '../dom.js';
import { calls, daysAgo, usdc, utcDay } from '../format.js';
import type { Page } from '../main.js';
import { act, empty, errorBox, loading, pageTitle } from '../ui.js';

interface UsageByProvider {
  summary: { totalUsdcSpent: string; totalCalls: number; dateRange: { from: string; to: string } };
  providers: { providerId: string; providerName: string; usdcSpent: string; callCount: number }[];
}

export const usagePage: Page = {
  path: 'usage',
  title: 'Usage',
  async render(main) {
    main.append(...pageTitle('Usage by provider'));
    const from = h('input', { type: 'date', name: 'from', value: utcDay(daysAgo(29)) });
    const to = h('input', { type: 'date', name: 'to', value: utcDay(new Date()) });
    const show = h('button', { type: 'submit' }, 'Show');
    const download = h('button', { type: 'button', class: 'secondary' }, 'Download CSV');
    const downloadOut = h('span', { 'aria-live': 'polite' });
    const results = h('div', { 'aria-live': 'polite' });
    const range = () => new URLSearchParams({ from: from.value, to: to.value });

    const load = async () => {
      results.replaceChildren(loading('usage'));
      try {
        const usage = await api<UsageByProvider>('GET', `/v1/billing/usage?groupBy=provider&${range()}`);
        results.replaceChildren(
          h(
            'p',
            {},
            `${usdc(usage.summary.totalUsdcSpent)} over ${calls(usage.summary.totalCalls)}, ${usage.summary.dateRange.from} to ${usage.summary.dateRange.to} (UTC).`,
          ),
          usage.providers.length === 0
            ? empty('No calls in this range.')
            : table(
                ['Provider', 'Calls', 'Spent'],
                usage.providers.map((p) => [p.providerName, p.callCount, usdc(p.usdcSpent)]),
                'Usage by provider',
              ),
        );
      } catch (err) {
        results.replaceChildren(errorBox(err));
      }
    };

    download.addEventListener('click', () => {
      void act(download, downloadOut, async () => {
        const res = await request('GET', `/v1/billing/usage/export?${range()}`);
        const disposition = res.headers.get('content-disposition') ?? '';
        const name = /filename="([^"]+)"/.exec(disposition)?.[1] ?? 'usage.csv';
        const url = URL.createObjectURL(await res.blob());
        const link = h('a', { href: url, download: name, hidden: true });
        document.body.append(link);
        link.click();
        link.remove();
        setTimeout(() => URL.revokeObjectURL(url), 10_000);
        return `Downloaded ${name}.`;
      });
    });

    const form = h(
      'form',
      { class: 'filters' },
      field('From', from),
      field('To', to),
      show,
      download,
      downloadOut,
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void load();
    });
    main.append(form, results);
    await load();
  },
};
