// Card top-up: POST /v1/billing/checkout, then the processor's checkout page (local or Stripe), which
// returns here; payments list below.
import { type ApiError, api } from '../api.js';
import { field, h, table } from '../dom.js';
import { usdc, when } from '../format.js';
import type { Page } from '../main.js';
import { act, empty, errorBox, loading, notice, pageTitle } from '../ui.js';

interface Payment {
  id: string;
  amountUsd: string;
  creditsGranted: string;
  status: string;
  createdAt: string;
}

export const topupPage: Page = {
  path: 'topup',
  title: 'Top up',
  async render(main, params) {
    main.append(...pageTitle('Top up by card', '1 USD buys 1 USDC of credit. From $5 to $10,000.'));
    if (params.get('result') === 'paid') main.append(notice('Payment received: your balance is updated.'));
    if (params.get('result') === 'cancelled') main.append(notice('Checkout cancelled: nothing was charged.'));

    const balanceOut = h('p', { 'data-testid': 'topup-balance' });
    main.append(balanceOut);
    const showBalance = () =>
      api<{ balanceUsdc: string }>('GET', '/v1/billing/balance')
        .then((b) => balanceOut.replaceChildren('Balance: ', h('strong', {}, usdc(b.balanceUsdc))))
        .catch((err: unknown) => balanceOut.replaceChildren(errorBox(err)));
    void showBalance();

    const amount = h('input', {
      type: 'number',
      name: 'amount',
      min: 5,
      max: 10000,
      step: '0.01',
      value: '20',
      required: true,
    });
    const pay = h('button', { type: 'submit' }, 'Continue to checkout');
    const out = h('div', { 'aria-live': 'polite' });
    const form = h('form', { class: 'card' }, field('Amount (USD)', amount), pay, out);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void act(pay, out, async () => {
        const cents = Math.round(Number(amount.value) * 100);
        const back = `${location.origin}/dashboard#topup?result=`;
        const session = await api<{ checkoutUrl: string }>('POST', '/v1/billing/checkout', {
          amountUsdCents: cents,
          successUrl: `${back}paid`,
          cancelUrl: `${back}cancelled`,
        });
        location.assign(session.checkoutUrl);
        return 'Opening checkout…';
      });
    });

    const list = h(
      'section',
      { 'aria-labelledby': 'payments-title' },
      h('h2', { id: 'payments-title' }, 'Payments'),
    );
    main.append(form, couponForm(showBalance), list);
    const status = loading('payments');
    list.append(status);
    try {
      const { payments } = await api<{ payments: Payment[] }>('GET', '/v1/billing/payments?limit=20');
      status.replaceWith(
        payments.length === 0
          ? empty('No payments yet.')
          : table(
              ['Created', 'Amount', 'Credit', 'Status'],
              payments.map((p) => [
                when(p.createdAt),
                `$${p.amountUsd}`,
                usdc(creditsToUsdc(p.creditsGranted)),
                p.status,
              ]),
              'Payments',
            ),
      );
    } catch (err) {
      status.replaceWith(errorBox(err));
    }
  },
};

interface Redemption {
  code: string;
  creditsGranted: string;
  usdcEquivalent: string;
  description: string;
  newBalance: string;
}

/** What to do about each refusal of POST /v1/billing/coupons/redeem. */
function couponAdvice(err: ApiError): string | undefined {
  if (err.code === 'SVC-COUPON-001') return 'No coupon has this code: check it and try again.';
  if (err.code === 'SVC-COUPON-002') return 'This account has already used this coupon; each works once.';
  if (err.code === 'SVC-COUPON-003') {
    return err.details.reason === 'exhausted'
      ? 'Every redemption of this coupon has been used.'
      : 'This coupon is past its expiry date.';
  }
  return undefined;
}

/** Redeem a coupon code: the credit goes on the balance at once (once per account and coupon). */
function couponForm(refreshBalance: () => Promise<unknown>): HTMLElement {
  const code = h('input', {
    type: 'text',
    name: 'coupon',
    required: true,
    maxlength: 64,
    autocomplete: 'off',
    spellcheck: false,
  });
  const redeem = h('button', { type: 'submit' }, 'Redeem coupon');
  const out = h('div', { 'aria-live': 'polite' });
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'coupon-title' },
    h('h2', { id: 'coupon-title' }, 'Redeem a coupon'),
    field('Coupon code', code, 'Codes are not case-sensitive.'),
    redeem,
    out,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void act(
      redeem,
      out,
      async () => {
        const r = await api<Redemption>('POST', '/v1/billing/coupons/redeem', { code: code.value.trim() });
        code.value = '';
        await refreshBalance();
        const about = r.description ? ` (${r.description})` : '';
        return `Coupon ${r.code} redeemed: +${usdc(r.usdcEquivalent)}${about}. New balance: ${usdc(creditsToUsdc(r.newBalance))}.`;
      },
      couponAdvice,
    );
  });
  return form;
}

/** Credits (integer string) → USDC decimal string, by string arithmetic. */
function creditsToUsdc(credits: string): string {
  const padded = credits.padStart(7, '0');
  return `${padded.slice(0, -6)}.${padded.slice(-6)}`;
}
