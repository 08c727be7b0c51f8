// API keys: list with each key's spending policy and usage, create (optionally with a policy: an agent
// key; the key is shown once, with a copy button), revoke after confirmation.
import type { KeyPolicyView, KeyUsageView } from '../../../keys/index.js';
import { api, apiData } from '../api.js';
import { field, h, table } from '../dom.js';
import { usdc, when } from '../format.js';
import type { Page } from '../main.js';
import { act, empty, errorBox, loading, notice, pageTitle } from '../ui.js';

interface KeyView {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  status: 'active' | 'revoked';
  policy: KeyPolicy | null;
  usage: KeyUsageView;
}

// The API's own shapes (type-only: nothing of the server module reaches the bundle).
type KeyPolicy = KeyPolicyView;

/** One line per rule of a policy; a key without one may do anything its account may. */
function describePolicy(policy: KeyPolicy | null): HTMLElement {
  if (!policy) return h('span', {}, 'None: full access');
  const rules = [
    policy.daily_limit_usdc !== null && `Daily limit ${usdc(policy.daily_limit_usdc)}`,
    policy.total_limit_usdc !== null && `Total limit ${usdc(policy.total_limit_usdc)}`,
    policy.per_call_max_usdc !== null && `At most ${usdc(policy.per_call_max_usdc)} a call`,
    policy.allowed_providers && `Providers: ${policy.allowed_providers.join(', ') || 'none'}`,
    policy.allowed_categories && `Categories: ${policy.allowed_categories.join(', ') || 'none'}`,
    policy.expires_at && `Expires ${when(policy.expires_at)}`,
  ].filter((rule): rule is string => typeof rule === 'string');
  return h(
    'ul',
    { class: 'rules' },
    ...(rules.length === 0 ? ['No budget; cannot manage the account'] : rules).map((r) => h('li', {}, r)),
  );
}

function describeUsage(k: KeyView): HTMLElement {
  const of = (limit: string | null | undefined) => (limit ? ` of ${usdc(limit)}` : '');
  return h(
    'ul',
    { class: 'rules' },
    h('li', {}, `Today ${usdc(k.usage.today_usdc)}${of(k.policy?.daily_limit_usdc)}`),
    h('li', {}, `Total ${usdc(k.usage.total_usdc)}${of(k.policy?.total_limit_usdc)}`),
  );
}

/** The optional policy fields of the new-key form; `read()` is null when every field is empty. */
function policyFields() {
  const amount = () =>
    h('input', { type: 'text', inputmode: 'decimal', pattern: '\\d+(\\.\\d{1,6})?', spellcheck: false });
  const daily = amount();
  const total = amount();
  const perCall = amount();
  const providers = h('input', { type: 'text', spellcheck: false });
  const categories = h('input', { type: 'text', spellcheck: false });
  const expires = h('input', { type: 'datetime-local' });
  const list = (input: HTMLInputElement) =>
    input.value
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v !== '');
  const element = h(
    'fieldset',
    { class: 'policy' },
    h('legend', {}, 'Spending policy (optional: makes it an agent key)'),
    h(
      'p',
      { class: 'hint' },
      'Leave every field empty for a key with full access. A key with a policy spends only within it and cannot manage keys, limits or alerts.',
    ),
    field('Daily limit (USDC)', daily, 'Per UTC day, net of refunds.'),
    field('Total limit (USDC)', total),
    field('Per-call maximum (USDC)', perCall),
    field('Allowed providers', providers, 'Provider ids, separated by commas. Empty: any provider.'),
    field('Allowed categories', categories, 'Categories, separated by commas. Empty: any category.'),
    field('Expires', expires, 'Your local time. Empty: never.'),
  );
  const read = (): Record<string, unknown> | null => {
    const policy: Record<string, unknown> = {};
    if (daily.value.trim()) policy.daily_limit_usdc = daily.value.trim();
    if (total.value.trim()) policy.total_limit_usdc = total.value.trim();
    if (perCall.value.trim()) policy.per_call_max_usdc = perCall.value.trim();
    if (list(providers).length) policy.allowed_providers = list(providers);
    if (list(categories).length) policy.allowed_categories = list(categories);
    if (expires.value) policy.expires_at = new Date(expires.value).toISOString();
    return Object.keys(policy).length === 0 ? null : policy;
  };
  const reset = () => {
    for (const input of [daily, total, perCall, providers, categories, expires]) input.value = '';
  };
  return { element, read, reset };
}

export const keysPage: Page = {
  path: 'keys',
  title: 'API keys',
  async render(main) {
    main.append(
      ...pageTitle('API keys', 'Agents use a key in the x-svc-api-key header. Revoked keys stop at once.'),
    );
    const name = h('input', { type: 'text', name: 'name', maxlength: 100, required: true });
    const create = h('button', { type: 'submit' }, 'Create key');
    const created = h('div', { 'aria-live': 'polite' });
    const policy = policyFields();
    const form = h(
      'form',
      { class: 'card' },
      h('h2', {}, 'New key'),
      field('Name', name, 'For example the agent or machine using it.'),
      policy.element,
      create,
      created,
    );
    const list = h(
      'section',
      { 'aria-labelledby': 'keys-title' },
      h('h2', { id: 'keys-title' }, 'Your keys'),
    );
    const body = h('div', { 'aria-live': 'polite' });
    list.append(body);
    main.append(form, list);

    const load = async () => {
      body.replaceChildren(loading('keys'));
      try {
        const keys = await apiData<KeyView[]>('GET', '/v1/keys');
        const rows = keys.map((k) => {
          const out = h('span');
          const revoke = h(
            'button',
            { type: 'button', class: 'danger', 'aria-label': `Revoke key ${k.name}` },
            'Revoke',
          );
          revoke.addEventListener('click', () => {
            if (
              !window.confirm(
                `Revoke the key "${k.name}" (${k.prefix}…)? Agents using it are refused at once.`,
              )
            )
              return;
            void act(revoke, out, async () => {
              await api('DELETE', `/v1/keys/${encodeURIComponent(k.id)}`);
              await load();
              return null;
            });
          });
          return [
            k.name,
            h('code', {}, `${k.prefix}…`),
            k.status,
            describePolicy(k.policy),
            describeUsage(k),
            when(k.created_at),
            when(k.last_used_at),
            k.status === 'active' ? h('span', {}, revoke, out) : '',
          ];
        });
        body.replaceChildren(
          rows.length === 0
            ? empty('No keys yet: create one above.')
            : table(
                ['Name', 'Key', 'Status', 'Policy', 'Spent', 'Created', 'Last used', ''],
                rows,
                'API keys',
              ),
        );
      } catch (err) {
        body.replaceChildren(errorBox(err));
      }
    };

    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void act(create, created, async () => {
        const rules = policy.read();
        const key = await apiData<{ id: string; key: string; name: string }>('POST', '/v1/keys', {
          name: name.value.trim(),
          ...(rules ? { policy: rules } : {}),
        });
        name.value = '';
        policy.reset();
        const value = h('input', {
          type: 'text',
          readonly: true,
          value: key.key,
          class: 'secret',
          'data-testid': 'new-key',
        });
        const copyOut = h('span', { 'aria-live': 'polite' });
        const copy = h('button', { type: 'button' }, 'Copy');
        copy.addEventListener('click', async () => {
          value.select();
          try {
            await navigator.clipboard.writeText(key.key);
            copyOut.textContent = 'Copied.';
          } catch {
            copyOut.textContent = 'Selected: press Ctrl+C (⌘C) to copy.';
          }
        });
        await load();
        return h(
          'div',
          { class: 'once' },
          notice(`Key "${key.name}" created. Copy it now: it is shown only once.`),
          field('Your new key', value),
          copy,
          copyOut,
        );
      });
    });
    await load();
  },
};
