// API keys: list, create (the key is shown once, with a copy button), revoke after confirmation.
import { api, apiData } from '../api.js';
import { field, h, table } from '../dom.js';
import { when } from '../format.js';
import type { Page } from '../main.js';
import { act, empty, errorBox, loading, notice, pageTitle } from '../ui.js';

interface KeyView {
  id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  status: 'active' | 'revoked';
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
    const form = h(
      'form',
      { class: 'card' },
      h('h2', {}, 'New key'),
      field('Name', name, 'For example the agent or machine using it.'),
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
            when(k.created_at),
            when(k.last_used_at),
            k.status === 'active' ? h('span', {}, revoke, out) : '',
          ];
        });
        body.replaceChildren(
          rows.length === 0
            ? empty('No keys yet: create one above.')
            : table(['Name', 'Key', 'Status', 'Created', 'Last used', ''], rows, 'API keys'),
        );
      } catch (err) {
        body.replaceChildren(errorBox(err));
      }
    };

    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void act(create, created, async () => {
        const key = await apiData<{ id: string; key: string; name: string }>('POST', '/v1/keys', {
          name: name.value.trim(),
        });
        name.value = '';
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
