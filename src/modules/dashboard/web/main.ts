// The dashboard app: a hash router over the pages below, a shell with navigation, and sign-in. Hash routes
// keep the server to one document; the session never appears in the URL.
import { SESSION_EXPIRED } from './api.js';
import { h } from './dom.js';
import { catalogPage } from './pages/catalog.js';
import { depositPage } from './pages/deposit.js';
import { historyPage } from './pages/history.js';
import { keysPage } from './pages/keys.js';
import { limitsPage } from './pages/limits.js';
import { overviewPage } from './pages/overview.js';
import { earningsPage, listingsPage } from './pages/provider.js';
import { renderSignIn } from './pages/signin.js';
import { topupPage } from './pages/topup.js';
import { usagePage } from './pages/usage.js';
import { clearSession, loadSession } from './session.js';
import { errorBox } from './ui.js';

export interface Page {
  path: string;
  title: string;
  render(main: HTMLElement, params: URLSearchParams): Promise<void>;
}

// Each page is one entry here, over the public API; the provider pages say so when their routes are
// missing on this server.
const PAGES: Page[] = [
  overviewPage,
  historyPage,
  depositPage,
  topupPage,
  keysPage,
  limitsPage,
  usagePage,
  catalogPage,
  listingsPage,
  earningsPage,
];

const root = document.getElementById('app') as HTMLElement;

function currentRoute(): { page: Page; params: URLSearchParams } {
  const [path = '', query = ''] = location.hash.replace(/^#/, '').split('?');
  const page = PAGES.find((p) => p.path === path) ?? (PAGES[0] as Page);
  return { page, params: new URLSearchParams(query) };
}

async function render(reason?: string): Promise<void> {
  const session = loadSession();
  if (!session) {
    renderSignIn(root, () => render(), reason);
    return;
  }
  const { page, params } = currentRoute();
  const nav = h(
    'nav',
    { 'aria-label': 'Dashboard' },
    h(
      'ul',
      {},
      ...PAGES.map((p) =>
        h('li', {}, h('a', { href: `#${p.path}`, 'aria-current': p === page ? 'page' : undefined }, p.title)),
      ),
    ),
  );
  const main = h('main', { id: 'main' });
  const header = h(
    'header',
    { class: 'top' },
    h('a', { href: '/', class: 'brand' }, 'Svc'),
    h('span', { class: 'who' }, session.kind === 'email' ? 'Signed in' : 'Signed in with a wallet'),
    h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        onclick: () => {
          clearSession();
          void render('You are signed out.');
        },
      },
      'Sign out',
    ),
  );
  root.replaceChildren(header, nav, main);
  try {
    await page.render(main, params);
  } catch (err) {
    main.append(errorBox(err));
  }
  document.getElementById('page-title')?.focus();
}

window.addEventListener('hashchange', () => void render());
window.addEventListener(
  SESSION_EXPIRED,
  () => void render('Your session has expired. Please sign in again.'),
);
void render();
