// Wallet history: calls, deposits, refunds and settlements, filtered by type, 20 a page (cursor pages).
import { api } from '../api.js';
import { field, h, table } from '../dom.js';
import { usdc, when } from '../format.js';
import type { Page } from '../main.js';
import { empty, errorBox, loading, pageTitle } from '../ui.js';

interface HistoryEntry {
  id: string;
  type: string;
  amount_usdc: string;
  description: string;
  provider_id?: string;
  endpoint?: string;
  tx_hash?: string;
  timestamp: string;
}
interface HistoryPage {
  data: HistoryEntry[];
  pagination: { has_more: boolean; next_cursor: string | null };
}

const TYPES = ['', 'call', 'deposit', 'refund', 'settlement'];

export const historyPage: Page = {
  path: 'history',
  title: 'History',
  async render(main) {
    main.append(
      ...pageTitle('History and calls', 'Every call, deposit, refund and settlement, newest first.'),
    );
    const type = h(
      'select',
      { name: 'type' },
      ...TYPES.map((t) => h('option', { value: t }, t === '' ? 'All' : t)),
    );
    const results = h('div', { 'aria-live': 'polite' });
    const cursors: (string | undefined)[] = [undefined];
    let index = 0;

    const load = async () => {
      results.replaceChildren(loading('history'));
      const query = new URLSearchParams({ limit: '20' });
      if (type.value) query.set('type', type.value);
      const cursor = cursors[index];
      if (cursor) query.set('cursor', cursor);
      try {
        const page = await api<HistoryPage>('GET', `/v1/wallet/history?${query}`);
        if (page.pagination.next_cursor) cursors[index + 1] = page.pagination.next_cursor;
        const rows = page.data.map((e) => [
          when(e.timestamp),
          e.type,
          usdc(e.amount_usdc),
          e.description,
          e.endpoint ? `${e.provider_id ?? ''}/${e.endpoint}` : (e.tx_hash ?? ''),
        ]);
        const prev = h(
          'button',
          { type: 'button', class: 'secondary', disabled: index === 0 },
          'Previous page',
        );
        const next = h(
          'button',
          { type: 'button', class: 'secondary', disabled: !page.pagination.has_more },
          'Next page',
        );
        prev.addEventListener('click', () => {
          index -= 1;
          void load();
        });
        next.addEventListener('click', () => {
          index += 1;
          void load();
        });
        results.replaceChildren(
          rows.length === 0
            ? empty('Nothing here yet.')
            : table(['When', 'Type', 'Amount', 'Description', 'Endpoint or tx'], rows, 'History'),
          h('div', { class: 'pager' }, prev, h('span', {}, `Page ${index + 1}`), next),
        );
      } catch (err) {
        results.replaceChildren(errorBox(err));
      }
    };
    type.addEventListener('change', () => {
      cursors.length = 1;
      index = 0;
      void load();
    });
    main.append(h('div', { class: 'filters' }, field('Type', type)), results);
    await load();
  },
};
