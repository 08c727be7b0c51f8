// Shared page states: loading, empty, error (the API's message, code and request id), and notices.
import { ApiError } from './api.js';
import { h } from './dom.js';

export function loading(what: string): HTMLElement {
  return h('p', { class: 'state', role: 'status' }, `Loading ${what}…`);
}

export function empty(message: string): HTMLElement {
  return h('p', { class: 'state empty' }, message);
}

/** The API's error; `explain` may add a sentence saying what to do about a given code. */
export function errorBox(err: unknown, explain?: (err: ApiError) => string | undefined): HTMLElement {
  if (err instanceof ApiError) {
    const advice = explain?.(err);
    return h(
      'div',
      { class: 'error', role: 'alert' },
      h('p', {}, h('strong', {}, 'Error: '), err.message),
      advice ? h('p', {}, advice) : null,
      h('p', { class: 'meta' }, `Code ${err.code}`, err.requestId ? ` · request id ${err.requestId}` : ''),
    );
  }
  return h(
    'div',
    { class: 'error', role: 'alert' },
    h('p', {}, String(err instanceof Error ? err.message : err)),
  );
}

export function notice(message: string): HTMLElement {
  return h('p', { class: 'notice', role: 'status' }, message);
}

/** Runs a button's action with the button disabled and the outcome written into `out`. */
export async function act(
  button: HTMLButtonElement,
  out: HTMLElement,
  action: () => Promise<Node | string | null>,
  explain?: (err: ApiError) => string | undefined,
) {
  button.disabled = true;
  out.replaceChildren(h('span', { role: 'status' }, 'Working…'));
  try {
    const result = await action();
    out.replaceChildren(...(result === null ? [] : [typeof result === 'string' ? notice(result) : result]));
  } catch (err) {
    out.replaceChildren(errorBox(err, explain));
  } finally {
    button.disabled = false;
  }
}

export function pageTitle(title: string, intro?: string): HTMLElement[] {
  document.title = `${title} · Svc dashboard`;
  return [
    h('h1', { tabindex: -1, id: 'page-title' }, title),
    ...(intro ? [h('p', { class: 'intro' }, intro)] : []),
  ];
}
