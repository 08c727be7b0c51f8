// HTML of the local checkout page and the payment receipt. Every value is escaped; nothing here reads
// the database.
import { toIso } from '../../db/index.js';
import { creditsToUsdc } from '../../lib/money.js';
import { formatUsdCents, type PaymentRow } from './payments.js';

export function escapeHtml(value: unknown): string {
  return String(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const STYLE = `
  *{box-sizing:border-box}
  body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;
    font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f1f3f8;color:#1d2433}
  main{width:min(420px,92vw);background:#fff;border-radius:14px;box-shadow:0 8px 30px rgba(20,30,60,.12);padding:32px}
  h1{font-size:1.15rem;margin:0 0 4px} .muted{color:#6b7385;font-size:.9rem}
  .amount{font-size:2.4rem;font-weight:700;margin:18px 0 2px;letter-spacing:-.02em}
  dl{display:grid;grid-template-columns:auto 1fr;gap:6px 16px;margin:20px 0;font-size:.92rem}
  dt{color:#6b7385} dd{margin:0;text-align:right;font-variant-numeric:tabular-nums;word-break:break-all}
  .actions{display:flex;gap:10px;margin-top:24px} form{flex:1;margin:0}
  button{width:100%;padding:12px;border-radius:9px;border:0;font:inherit;font-weight:600;cursor:pointer}
  .pay{background:#3b5bdb;color:#fff} .pay:hover{background:#2f4ac0}
  .cancel{background:#eef0f5;color:#1d2433} .cancel:hover{background:#e2e5ee}
  .badge{display:inline-block;padding:2px 10px;border-radius:99px;font-size:.8rem;font-weight:600;background:#eef0f5}
  .badge.completed{background:#d3f9d8;color:#2b8a3e} .badge.refunded{background:#fff3bf;color:#8a6d00}
  .badge.failed,.badge.expired{background:#ffe3e3;color:#c92a2a}
  .note{margin-top:20px;font-size:.8rem;color:#6b7385;border-top:1px solid #eef0f5;padding-top:14px}`;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>`;
}

function summary(p: PaymentRow): string {
  return `<dl>
    <dt>Credits</dt><dd>${escapeHtml(p.credits.toString())}</dd>
    <dt>USDC equivalent</dt><dd>${escapeHtml(creditsToUsdc(p.credits))}</dd>
    <dt>Payment</dt><dd>${escapeHtml(p.id)}</dd>
  </dl>`;
}

export function checkoutPage(p: PaymentRow, expiresAt: Date): string {
  const base = `/checkout/${encodeURIComponent(p.session_id)}`;
  return layout(
    'Svc checkout',
    `<h1>Top up your Svc balance</h1>
    <div class="muted">Local test checkout: no card is charged.</div>
    <div class="amount">$${escapeHtml(formatUsdCents(p.amount_usd_cents))}</div>
    ${summary(p)}
    <div class="actions">
      <form method="post" action="${escapeHtml(`${base}/cancel`)}"><button class="cancel" type="submit">Cancel</button></form>
      <form method="post" action="${escapeHtml(`${base}/pay`)}"><button class="pay" type="submit">Pay $${escapeHtml(formatUsdCents(p.amount_usd_cents))}</button></form>
    </div>
    <div class="note">This session expires at ${escapeHtml(expiresAt.toISOString())}.</div>`,
  );
}

export function closedCheckoutPage(p: PaymentRow): string {
  return layout(
    'Svc checkout',
    `<h1>This checkout is no longer open</h1>
    <div class="muted">Status: <span class="badge ${escapeHtml(p.status)}">${escapeHtml(p.status)}</span></div>
    ${summary(p)}
    <div class="note">Start a new top-up from your account to pay.</div>`,
  );
}

export function notFoundPage(what: string): string {
  return layout(
    'Not found',
    `<h1>${escapeHtml(what)} not found</h1><div class="muted">Check the link.</div>`,
  );
}

export function receiptPage(p: PaymentRow): string {
  const rows: [string, string][] = [
    ['Amount paid', `$${formatUsdCents(p.amount_usd_cents)} USD`],
    ['Credits', p.credits.toString()],
    ['Created', toIso(p.created_at)],
    ['Completed', p.completed_at ? toIso(p.completed_at) : '—'],
  ];
  if (p.refunded_usd_cents > 0) rows.push(['Refunded', `$${formatUsdCents(p.refunded_usd_cents)} USD`]);
  return layout(
    `Receipt ${p.id}`,
    `<h1>Receipt</h1>
    <div class="muted">${escapeHtml(p.id)} · <span class="badge ${escapeHtml(p.status)}">${escapeHtml(p.status)}</span></div>
    <div class="amount">$${escapeHtml(formatUsdCents(p.amount_usd_cents))}</div>
    <dl>${rows.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl>
    <div class="note">Paid by card ${p.processor === 'local' ? '(local test checkout)' : 'through Stripe'}.</div>`,
  );
}
