// USDC deposits (docs/dashboard.md): the platform address with a QR code, claiming a transfer by its
// hash, linked wallets, and in devnet the faucet and a one-click transfer from the dev wallet. Each part
// says "not available" when its route answers 404 (an older server, or not devnet).
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  erc20Abi,
  type Hex,
  http,
  parseUnits,
} from 'viem';
import { ApiError, api, apiData, isNotFound } from '../api.js';
import { field, h, table } from '../dom.js';
import { usdc, when } from '../format.js';
import type { Page } from '../main.js';
import { qrCanvas } from '../qr.js';
import { act, empty, errorBox, loading, notice, pageTitle } from '../ui.js';
import { devAccount, devSigner, signChallenge } from '../wallet.js';

interface DepositAddress {
  network: string;
  chain_id: number;
  usdc_address: string;
  platform_wallet: string;
  min_deposit_usdc: string;
  confirmations: number;
}
interface Devnet {
  chain_id: number;
  rpc_url: string;
  usdc_address: string;
  platform_wallet: string;
}
interface Link {
  wallet_address: string;
  linked_at: string;
}

async function optional<T>(load: () => Promise<T>): Promise<T | null> {
  try {
    return await load();
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
}

interface DepositEntry {
  id: string;
  amount_usdc: string;
  tx_hash?: string;
  timestamp: string;
}

/**
 * POST /v1/wallet/deposit, retrying while the transfer still lacks confirmations (409 SVC-PAY-006). A
 * transfer the deposit watcher credited first (409 SVC-PAY-003) is not a failure for the person: it is
 * on the balance already.
 */
async function claimDeposit(txHash: string): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    try {
      const deposit = await apiData<{ amount_usdc: string; new_balance_usdc: string }>(
        'POST',
        '/v1/wallet/deposit',
        { tx_hash: txHash },
      );
      return `Deposit credited: ${usdc(deposit.amount_usdc)}. New balance: ${usdc(deposit.new_balance_usdc)}.`;
    } catch (err) {
      if (err instanceof ApiError && err.code === 'SVC-PAY-006' && attempt < 20) {
        await new Promise((resolve) => setTimeout(resolve, 3000));
        continue;
      }
      if (err instanceof ApiError && err.code === 'SVC-PAY-003') {
        return 'This transfer is already credited to your balance.';
      }
      throw err;
    }
  }
}

/** The balance and the latest deposits, redrawn after each claim. */
function depositSummary(): { element: HTMLElement; refresh: () => Promise<void> } {
  const balance = h('p', { 'data-testid': 'deposit-balance' });
  const recent = h('div', { 'aria-live': 'polite' });
  const element = h(
    'section',
    { class: 'card', 'aria-labelledby': 'recent-title' },
    h('h2', { id: 'recent-title' }, 'Recent deposits'),
    balance,
    recent,
  );
  const refresh = async () => {
    try {
      const [b, deposits] = await Promise.all([
        api<{ balanceUsdc: string }>('GET', '/v1/billing/balance'),
        apiData<DepositEntry[]>('GET', '/v1/wallet/history?type=deposit&limit=10'),
      ]);
      balance.replaceChildren('Balance: ', h('strong', {}, usdc(b.balanceUsdc)));
      recent.replaceChildren(
        deposits.length === 0
          ? empty('No deposit yet.')
          : table(
              ['Credited', 'Amount', 'Transaction'],
              deposits.map((d) => [
                when(d.timestamp),
                usdc(d.amount_usdc),
                h('code', { class: 'address' }, d.tx_hash ?? ''),
              ]),
              'Recent deposits',
            ),
      );
    } catch (err) {
      recent.replaceChildren(errorBox(err));
    }
  };
  return { element, refresh };
}

export const depositPage: Page = {
  path: 'deposit',
  title: 'Deposit',
  async render(main) {
    main.append(...pageTitle('Deposit USDC'));
    const status = loading('the deposit address');
    main.append(status);
    const address = await optional(() => apiData<DepositAddress>('GET', '/v1/wallet/deposit-address'));
    status.remove();
    if (!address) {
      main.append(
        empty('USDC deposits are not available on this server. Top up by card instead.'),
        h('a', { href: '#topup' }, 'Top up by card'),
      );
      return;
    }
    main.append(
      h(
        'div',
        { class: 'card deposit-address' },
        h('h2', {}, 'Send USDC to'),
        qrCanvas(address.platform_wallet, `QR code of the deposit address ${address.platform_wallet}`),
        h(
          'p',
          {},
          h('code', { class: 'address', 'data-testid': 'platform-wallet' }, address.platform_wallet),
        ),
        h(
          'p',
          { class: 'meta' },
          `Network ${address.network} (chain ${address.chain_id}) · USDC contract ${address.usdc_address} · at least ${usdc(address.min_deposit_usdc)} · credited after ${address.confirmations} confirmation(s)`,
        ),
        h(
          'p',
          {},
          'Send from a wallet linked to this account; a transfer from any other wallet cannot be claimed.',
        ),
      ),
    );

    const hash = h('input', {
      type: 'text',
      name: 'tx_hash',
      pattern: '0x[0-9a-fA-F]{64}',
      required: true,
      spellcheck: false,
    });
    const submit = h('button', { type: 'submit' }, 'Claim deposit');
    const out = h('div', { 'aria-live': 'polite' });
    const claimForm = h(
      'form',
      { class: 'card' },
      h('h2', {}, 'Claim a transfer'),
      field('Transaction hash', hash, '0x followed by 64 hex digits.'),
      submit,
      out,
    );
    claimForm.addEventListener('submit', (event) => {
      event.preventDefault();
      void act(submit, out, () => claim(hash.value.trim()));
    });
    const summary = depositSummary();
    const claim = async (txHash: string) => {
      const result = await claimDeposit(txHash);
      await summary.refresh();
      return result;
    };
    main.append(claimForm);

    const links = h(
      'section',
      { class: 'card', 'aria-labelledby': 'links-title' },
      h('h2', { id: 'links-title' }, 'Linked wallets'),
    );
    main.append(links);
    let linked: string[] = [];
    const loadLinks = async () => {
      try {
        const list = await optional(() => apiData<Link[]>('GET', '/v1/wallet/links'));
        linked = (list ?? []).map((l) => l.wallet_address.toLowerCase());
        if (list === null)
          return links.replaceChildren(
            h('h2', { id: 'links-title' }, 'Linked wallets'),
            empty('Wallet links are not available on this server.'),
          );
        links.replaceChildren(
          h('h2', { id: 'links-title' }, 'Linked wallets'),
          list.length === 0
            ? empty('No wallet linked yet.')
            : table(
                ['Wallet', 'Linked'],
                list.map((l) => [h('code', { class: 'address' }, l.wallet_address), when(l.linked_at)]),
                'Linked wallets',
              ),
        );
      } catch (err) {
        links.append(errorBox(err));
      }
    };
    await loadLinks();

    const devnet = await optional(() => apiData<Devnet>('GET', '/v1/devnet'));
    if (devnet) main.append(devnetPanel(devnet, { reloadLinks: loadLinks, linked: () => linked, claim }));
    main.append(summary.element);
    await summary.refresh();
  },
};

interface DevnetHooks {
  reloadLinks: () => Promise<unknown>;
  /** Addresses (lower case) linked to the account: the dev wallet needs linking only once. */
  linked: () => string[];
  claim: (txHash: string) => Promise<string>;
}

function devnetPanel(devnet: Devnet, hooks: DevnetHooks): HTMLElement {
  const account = devAccount(true);
  const panel = h(
    'section',
    { class: 'card', 'aria-labelledby': 'devnet-title' },
    h('h2', { id: 'devnet-title' }, 'Devnet: test USDC'),
  );
  if (!account) return panel;
  const chain = defineChain({
    id: devnet.chain_id,
    name: 'devnet',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [devnet.rpc_url] } },
  });
  const amount = h('input', { type: 'number', name: 'amount', min: 5, max: 10000, step: '1', value: '10' });
  const out = h('div', { 'aria-live': 'polite' });
  const link = h('button', { type: 'button', class: 'secondary' }, 'Link the dev wallet');
  const faucet = h('button', { type: 'button', class: 'secondary' }, 'Get 100 test USDC');
  const send = h('button', { type: 'button' }, 'Send and claim');
  link.addEventListener('click', () =>
    act(link, out, async () => {
      const signed = await signChallenge(devSigner());
      await apiData('POST', '/v1/wallet/links', {
        wallet_address: signed.wallet,
        nonce: signed.nonce,
        signature: signed.signature,
      });
      await hooks.reloadLinks();
      link.hidden = true;
      return 'Dev wallet linked.';
    }),
  );
  faucet.addEventListener('click', () =>
    act(faucet, out, async () => {
      const sent = await apiData<{ tx_hash: string; amount_usdc: string }>('POST', '/v1/devnet/faucet', {
        address: account.address,
        amount_usdc: '100',
      });
      return `Faucet sent ${usdc(sent.amount_usdc)} (tx ${sent.tx_hash}).`;
    }),
  );
  send.addEventListener('click', () =>
    act(send, out, async () => {
      const wallet = createWalletClient({ account, chain, transport: http(devnet.rpc_url) });
      const reader = createPublicClient({ chain, transport: http(devnet.rpc_url) });
      const txHash: Hex = await wallet.writeContract({
        address: devnet.usdc_address as Hex,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [devnet.platform_wallet as Hex, parseUnits(amount.value || '0', 6)],
      });
      await reader.waitForTransactionReceipt({ hash: txHash });
      return notice(`${await hooks.claim(txHash)} (tx ${txHash})`);
    }),
  );
  // Signing in with the dev wallet links it already.
  link.hidden = hooks.linked().includes(account.address.toLowerCase());
  panel.append(
    h('p', {}, 'Dev wallet: ', h('code', { class: 'address', 'data-testid': 'dev-wallet' }, account.address)),
    h(
      'p',
      { class: 'hint' },
      link.hidden
        ? 'Get test USDC from the faucet, then send a deposit to the platform wallet in one click.'
        : 'Link it (once), get test USDC from the faucet, then send a deposit to the platform wallet in one click.',
    ),
    h('div', { class: 'row' }, link, faucet),
    field('Amount to deposit (USDC)', amount),
    send,
    out,
  );
  return panel;
}
