// Provider pages over the self-service API: listings you own (create with one endpoint, the secret shown
// once; delete after a confirmation), and earnings, payout wallet and settlements. On a server without the
// provider routes (404) each page says the features are not enabled instead of failing.
import { api, apiData, isNotFound } from '../api.js';
import { field, h, table } from '../dom.js';
import { calls, usdc, when } from '../format.js';
import type { Page } from '../main.js';
import { act, empty, errorBox, loading, notice, pageTitle } from '../ui.js';

interface Listing {
  provider_id: string;
  name: string;
  category: string;
  base_url: string;
  status: string;
  endpoints: { slug: string; method: string; pricing: { price_per_call_usdc: string } }[];
  pending_change: { requested_at: string } | null;
}
interface Earnings {
  unsettled_calls: number;
  unsettled_gross_usdc: string;
  unsettled_fee_usdc: string;
  unsettled_net_usdc: string;
  carried_over_usdc: string;
  next_settlement_at: string;
}
interface Settlement {
  settlement_id: string;
  provider_id: string;
  period_start: string;
  period_end: string;
  total_calls: number;
  gross_usdc: string;
  fee_usdc: string;
  net_usdc: string;
  status: string;
  tx_hash: string | null;
}

const CATEGORIES = ['utility', 'data_intelligence', 'ai_ml', 'communication', 'blockchain'];
const NOT_ENABLED = 'Provider features are not enabled on this server.';

/** Renders `NOT_ENABLED` in place of the page when the provider routes are missing (404). */
async function orNotEnabled(main: HTMLElement, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (err) {
    if (!isNotFound(err)) throw err;
    main.replaceChildren(
      ...pageTitle(main.querySelector('h1')?.textContent ?? 'Provider'),
      empty(NOT_ENABLED),
    );
  }
}

function listingForm(onCreated: () => Promise<void>): HTMLElement {
  const input = (attrs: Record<string, string | number | boolean> = {}) =>
    h('input', { type: 'text', spellcheck: false, ...attrs });
  const name = input({ required: true, maxlength: 200 });
  const providerId = input({ pattern: '[a-z0-9][a-z0-9-]*', maxlength: 64 });
  const description = input({ maxlength: 2000 });
  const category = h('select', {}, ...CATEGORIES.map((c) => h('option', { value: c }, c)));
  const baseUrl = input({ type: 'url', required: true, placeholder: 'https://api.example.com' });
  const slug = input({ required: true, pattern: '[a-z0-9][a-z0-9-]*', maxlength: 64 });
  const method = h('select', {}, ...['POST', 'GET', 'PUT', 'PATCH', 'DELETE'].map((m) => h('option', {}, m)));
  const path = input({ placeholder: '/ (default: /slug)' });
  const endpointDescription = input({ required: true, maxlength: 2000 });
  const price = input({ required: true, inputmode: 'decimal', pattern: '\\d+(\\.\\d{1,6})?' });
  const submit = h('button', { type: 'submit' }, 'Create listing');
  const out = h('div', { 'aria-live': 'polite' });
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'new-listing-title' },
    h('h2', { id: 'new-listing-title' }, 'New listing'),
    field('Name', name),
    field('Provider id', providerId, 'Lower-case letters, digits and "-". Empty: chosen for you.'),
    field('Description', description),
    field('Category', category),
    field('Base URL', baseUrl, 'Where calls are forwarded, signed with the provider secret.'),
    h(
      'fieldset',
      {},
      h('legend', {}, 'First endpoint'),
      field('Endpoint slug', slug),
      field('Method', method),
      field('Path', path),
      field('Endpoint description', endpointDescription),
      field('Price per call (USDC)', price),
    ),
    submit,
    out,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void act(submit, out, async () => {
      const created = await apiData<Listing & { provider_secret: string }>('POST', '/v1/provider/listings', {
        ...(providerId.value.trim() ? { provider_id: providerId.value.trim() } : {}),
        name: name.value.trim(),
        description: description.value.trim(),
        category: category.value,
        base_url: baseUrl.value.trim(),
        endpoints: [
          {
            slug: slug.value.trim(),
            method: method.value,
            ...(path.value.trim() ? { path: path.value.trim() } : {}),
            description: endpointDescription.value.trim(),
            parameters: {},
            pricing: { model: 'per_call', price_per_call_usdc: price.value.trim() },
          },
        ],
      });
      form.reset();
      await onCreated();
      const secret = h('input', {
        type: 'text',
        readonly: true,
        value: created.provider_secret,
        class: 'secret',
        'data-testid': 'provider-secret',
      });
      return h(
        'div',
        { class: 'once' },
        notice(
          `Listing "${created.name}" (${created.provider_id}) created, status ${created.status}. Copy its secret now: it is shown only once and signs every call forwarded to you.`,
        ),
        field('Provider secret', secret),
      );
    });
  });
  return form;
}

export const listingsPage: Page = {
  path: 'listings',
  title: 'Listings',
  async render(main) {
    main.append(
      ...pageTitle(
        'Provider listings',
        'Sell your API to agents: each call earns its price, paid out daily.',
      ),
    );
    const body = h('div', { 'aria-live': 'polite' }, loading('your listings'));
    const load = async () => {
      const listings = await apiData<Listing[]>('GET', '/v1/provider/listings');
      const rows = listings.map((l) => {
        const out = h('span');
        const remove = h(
          'button',
          { type: 'button', class: 'danger', 'aria-label': `Delete listing ${l.name}` },
          'Delete',
        );
        remove.addEventListener('click', () => {
          if (
            !window.confirm(`Delete the listing "${l.name}" and its endpoints? Agents can no longer call it.`)
          )
            return;
          void act(remove, out, async () => {
            await api('DELETE', `/v1/provider/listings/${encodeURIComponent(l.provider_id)}`);
            await load();
            return null;
          });
        });
        return [
          h('span', {}, l.name, h('br'), h('code', {}, l.provider_id)),
          l.pending_change ? `${l.status} (a change awaits review)` : l.status,
          l.category,
          h('code', { class: 'address' }, l.base_url),
          h(
            'ul',
            { class: 'rules' },
            ...l.endpoints.map((e) =>
              h('li', {}, `${e.method} ${e.slug}: ${usdc(e.pricing.price_per_call_usdc)}`),
            ),
          ),
          h('span', {}, remove, out),
        ];
      });
      body.replaceChildren(
        rows.length === 0
          ? empty('You list no provider yet: create one below.')
          : table(['Listing', 'Status', 'Category', 'Base URL', 'Endpoints', ''], rows, 'Your listings'),
      );
    };
    main.append(h('h2', {}, 'Your listings'), body);
    await orNotEnabled(main, async () => {
      await load();
      main.append(listingForm(() => load().catch((err: unknown) => body.replaceChildren(errorBox(err)))));
    });
  },
};

function payoutWalletPanel(): { element: HTMLElement; load: () => Promise<void> } {
  const element = h(
    'section',
    { class: 'card', 'aria-labelledby': 'payout-title' },
    h('h2', { id: 'payout-title' }, 'Payout wallet'),
  );
  const load = async () => {
    const [current, links] = await Promise.all([
      apiData<{ wallet_address: string | null }>('GET', '/v1/provider/payout-wallet'),
      apiData<{ wallet_address: string }[]>('GET', '/v1/wallet/links').catch((err: unknown) => {
        if (isNotFound(err)) return [];
        throw err;
      }),
    ]);
    const shown = h(
      'p',
      { 'data-testid': 'payout-wallet' },
      current.wallet_address
        ? h('code', { class: 'address' }, current.wallet_address)
        : 'None yet: payouts wait until you choose one.',
    );
    if (links.length === 0) {
      element.replaceChildren(
        h('h2', { id: 'payout-title' }, 'Payout wallet'),
        shown,
        empty('Link a wallet first (Deposit page): payouts go only to a wallet linked to this account.'),
      );
      return;
    }
    const choice = h(
      'select',
      {},
      ...links.map((l) =>
        h(
          'option',
          { value: l.wallet_address, selected: l.wallet_address === current.wallet_address },
          l.wallet_address,
        ),
      ),
    );
    const save = h('button', { type: 'submit' }, 'Set payout wallet');
    const out = h('div', { 'aria-live': 'polite' });
    const form = h('form', {}, field('Linked wallet', choice), save, out);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void act(save, out, async () => {
        const set = await apiData<{ wallet_address: string }>('PUT', '/v1/provider/payout-wallet', {
          wallet_address: choice.value,
        });
        shown.replaceChildren(h('code', { class: 'address' }, set.wallet_address));
        return 'Payout wallet saved.';
      });
    });
    element.replaceChildren(h('h2', { id: 'payout-title' }, 'Payout wallet'), shown, form);
  };
  return { element, load };
}

export const earningsPage: Page = {
  path: 'earnings',
  title: 'Earnings',
  async render(main) {
    main.append(
      ...pageTitle(
        'Earnings and payouts',
        'What your listings earned since the last settlement, where it is paid, and past settlements.',
      ),
    );
    const status = loading('your earnings');
    main.append(status);
    await orNotEnabled(main, async () => {
      const earnings = await apiData<Earnings>('GET', '/v1/provider/earnings');
      status.remove();
      const tile = (label: string, value: string, testid?: string) =>
        h('div', { class: 'tile' }, h('span', {}, label), h('strong', { 'data-testid': testid }, value));
      main.append(
        h(
          'div',
          { class: 'tiles' },
          tile('Unsettled, net', usdc(earnings.unsettled_net_usdc), 'earnings-net'),
          tile('Gross', usdc(earnings.unsettled_gross_usdc)),
          tile('Platform fee', usdc(earnings.unsettled_fee_usdc)),
          tile('Carried over', usdc(earnings.carried_over_usdc)),
        ),
        h(
          'p',
          { 'data-testid': 'earnings-calls' },
          `${calls(earnings.unsettled_calls)} not settled yet. Next settlement: ${when(earnings.next_settlement_at)}.`,
        ),
      );
      const wallet = payoutWalletPanel();
      main.append(wallet.element);
      await wallet.load().catch((err: unknown) => wallet.element.append(errorBox(err)));

      const settlements = h(
        'section',
        { 'aria-labelledby': 'settlements-title' },
        h('h2', { id: 'settlements-title' }, 'Settlements'),
      );
      main.append(settlements);
      const list = await apiData<Settlement[]>('GET', '/v1/provider/settlements?limit=50');
      settlements.append(
        list.length === 0
          ? empty('No settlement yet: they run daily for what was earned before 00:00 UTC.')
          : table(
              ['Period', 'Listing', 'Calls', 'Gross', 'Fee', 'Net', 'Status', 'Transaction'],
              list.map((s) => [
                `${when(s.period_start)} – ${when(s.period_end)}`,
                s.provider_id,
                s.total_calls,
                usdc(s.gross_usdc),
                usdc(s.fee_usdc),
                usdc(s.net_usdc),
                s.status,
                s.tx_hash ? h('code', { class: 'address' }, s.tx_hash) : '—',
              ]),
              'Settlements',
            ),
      );
    });
  },
};
