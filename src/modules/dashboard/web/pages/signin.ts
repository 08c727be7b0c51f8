// Sign-in: an e-mailed 6-digit code (POST /v1/auth/login, /v1/auth/verify) or a wallet signature (SIWE via
// an injected wallet, or the devnet dev wallet).
import { apiData } from '../api.js';
import { append, field, h } from '../dom.js';
import { clearSession, environment, forgetDevWalletKey, saveSession } from '../session.js';
import { errorBox, notice, pageTitle } from '../ui.js';
import {
  devAccount,
  devSigner,
  injectedProvider,
  injectedSigner,
  type Signer,
  signChallenge,
} from '../wallet.js';

export function renderSignIn(root: HTMLElement, onSignedIn: () => void, reason?: string): void {
  const out = h('div', { 'aria-live': 'polite' });
  const email = h('input', { type: 'email', name: 'email', autocomplete: 'email', required: true });
  const code = h('input', {
    type: 'text',
    name: 'code',
    inputmode: 'numeric',
    autocomplete: 'one-time-code',
    pattern: '[0-9]{6}',
    maxlength: 6,
    required: true,
  });
  const codeForm = h(
    'form',
    { class: 'card', hidden: true },
    h('h2', {}, 'Enter the code'),
    field('6-digit code', code, 'Sent to your e-mail; valid for a few minutes.'),
    h('button', { type: 'submit' }, 'Sign in'),
  );
  const emailForm = h(
    'form',
    { class: 'card' },
    h('h2', {}, 'With your e-mail'),
    field('E-mail address', email),
    h('button', { type: 'submit' }, 'Send me a code'),
  );

  emailForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      await apiData('POST', '/v1/auth/login', { email: email.value.trim() });
      codeForm.hidden = false;
      out.replaceChildren(notice(`If ${email.value.trim()} can sign in, a code is on its way.`));
      code.focus();
    } catch (err) {
      out.replaceChildren(errorBox(err));
    }
  });
  codeForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      const session = await apiData<{ session_token: string; expires_at: string; account_id: string }>(
        'POST',
        '/v1/auth/verify',
        { email: email.value.trim(), code: code.value.trim() },
      );
      saveSession({
        kind: 'email',
        token: session.session_token,
        expiresAt: session.expires_at,
        accountId: session.account_id,
      });
      onSignedIn();
    } catch (err) {
      out.replaceChildren(errorBox(err));
    }
  });

  const withWallet = async (signer: () => Promise<Signer> | Signer) => {
    try {
      const signed = await signChallenge(await signer());
      saveSession({ kind: 'wallet', ...signed, accountId: '' });
      const status = await apiData<{ tier: string; account_id: string | null }>('GET', '/v1/auth/status');
      if (status.tier !== 'authenticated' || !status.account_id) {
        clearSession();
        throw new Error('The signature was not accepted.');
      }
      saveSession({ kind: 'wallet', ...signed, accountId: status.account_id });
      onSignedIn();
    } catch (err) {
      out.replaceChildren(errorBox(err));
    }
  };

  const walletCard = h('div', { class: 'card' }, h('h2', {}, 'With a wallet'));
  if (injectedProvider()) {
    walletCard.append(
      h(
        'button',
        { type: 'button', onclick: () => withWallet(injectedSigner) },
        'Sign in with browser wallet',
      ),
    );
  } else {
    walletCard.append(h('p', {}, 'No browser wallet (such as MetaMask) was found in this browser.'));
  }
  if (environment() === 'devnet') {
    const existing = devAccount(false);
    append(
      walletCard,
      h(
        'p',
        { class: 'hint' },
        'Devnet: the dev wallet is a test key this page generates and keeps in this browser. Never use it for real funds.',
      ),
      existing ? h('p', {}, 'Dev wallet: ', h('code', { class: 'address' }, existing.address)) : null,
      h('button', { type: 'button', onclick: () => withWallet(devSigner) }, 'Sign in with the dev wallet'),
      existing
        ? h(
            'button',
            {
              type: 'button',
              class: 'secondary',
              onclick: () => {
                if (window.confirm('Forget the dev wallet key? Its test funds become unreachable.')) {
                  forgetDevWalletKey();
                  renderSignIn(root, onSignedIn);
                }
              },
            },
            'Forget the dev wallet',
          )
        : null,
    );
  }

  root.replaceChildren(
    h(
      'main',
      { id: 'main', class: 'signin' },
      ...pageTitle('Sign in', 'Sign in to see your balance, keys, usage and payments.'),
      reason ? h('p', { class: 'notice', role: 'alert' }, reason) : null,
      out,
      emailForm,
      codeForm,
      walletCard,
    ),
  );
}
