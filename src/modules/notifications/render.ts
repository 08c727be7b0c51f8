// One small content model rendered twice, as plain text and as HTML, so both parts always say the same.
// Everything interpolated into HTML is escaped. Links are absolute, built from SVC_PUBLIC_URL.
import type { PrefKey } from './recipients.js';

export interface MailContent {
  subject: string;
  /** Opening paragraph(s). */
  intro: string[];
  /** Label/value pairs shown as a list (text) or a two-column table (HTML). */
  facts?: [string, string][];
  /** A table (digests). */
  table?: { caption: string; headers: string[]; rows: string[][] };
  /** Closing paragraphs. */
  outro?: string[];
  links?: { label: string; url: string }[];
  /** Set for mails the user can switch off: the footer says how. */
  prefKey?: PrefKey;
  /** No footer (operator test mail: not a notification). */
  noFooter?: boolean;
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function footer(publicUrl: string, prefKey: PrefKey | undefined): string {
  return prefKey
    ? `You receive this because "${prefKey}" is on in your alert preferences. To stop it: PUT ${publicUrl}/v1/billing/alerts with {"emailNotifications": {"${prefKey}": false}}.`
    : 'This notification is always sent; it cannot be switched off.';
}

export function renderMail(publicUrl: string, c: MailContent): RenderedMail {
  return { subject: c.subject, text: renderText(publicUrl, c), html: renderHtml(publicUrl, c) };
}

function renderText(publicUrl: string, c: MailContent): string {
  const out: string[] = ['Hello,', '', ...c.intro.flatMap((p) => [p, ''])];
  if (c.facts?.length) {
    const width = Math.max(...c.facts.map(([label]) => label.length));
    out.push(...c.facts.map(([label, value]) => `  ${`${label}:`.padEnd(width + 2)}${value}`), '');
  }
  if (c.table) {
    out.push(`${c.table.caption}:`);
    if (c.table.rows.length === 0) out.push('  (none)');
    for (const row of c.table.rows) {
      out.push(
        `  - ${row.map((cell, i) => (i === 0 ? cell : `${c.table?.headers[i]}: ${cell}`)).join(', ')}`,
      );
    }
    out.push('');
  }
  for (const p of c.outro ?? []) out.push(p, '');
  for (const l of c.links ?? []) out.push(`${l.label}: ${l.url}`);
  if (c.links?.length) out.push('');
  if (!c.noFooter) out.push('--', footer(publicUrl, c.prefKey), '');
  return out.join('\n');
}

function renderHtml(publicUrl: string, c: MailContent): string {
  const e = escapeHtml;
  const parts: string[] = [
    '<!doctype html>',
    `<html><head><meta charset="utf-8"><title>${e(c.subject)}</title></head>`,
    '<body style="font-family: sans-serif; line-height: 1.5; color: #222;">',
    '<p>Hello,</p>',
    ...c.intro.map((p) => `<p>${e(p)}</p>`),
  ];
  if (c.facts?.length) {
    parts.push('<table cellpadding="4" style="border-collapse: collapse;">');
    for (const [label, value] of c.facts) {
      parts.push(`<tr><th align="left">${e(label)}</th><td>${e(value)}</td></tr>`);
    }
    parts.push('</table>');
  }
  if (c.table) {
    parts.push(`<p><strong>${e(c.table.caption)}</strong></p>`);
    if (c.table.rows.length === 0) parts.push('<p>(none)</p>');
    else {
      parts.push('<table cellpadding="4" border="1" style="border-collapse: collapse;">');
      parts.push(`<tr>${c.table.headers.map((h) => `<th align="left">${e(h)}</th>`).join('')}</tr>`);
      for (const row of c.table.rows)
        parts.push(`<tr>${row.map((cell) => `<td>${e(cell)}</td>`).join('')}</tr>`);
      parts.push('</table>');
    }
  }
  parts.push(...(c.outro ?? []).map((p) => `<p>${e(p)}</p>`));
  if (c.links?.length) {
    parts.push('<ul>');
    for (const l of c.links) parts.push(`<li><a href="${e(l.url)}">${e(l.label)}</a></li>`);
    parts.push('</ul>');
  }
  if (!c.noFooter)
    parts.push(`<hr><p style="font-size: 12px; color: #666;">${e(footer(publicUrl, c.prefKey))}</p>`);
  parts.push('</body></html>');
  return parts.join('\n');
}

/** "12.34 USD" from integer cents. */
export function formatUsdCents(cents: number): string {
  const abs = Math.abs(Math.trunc(cents));
  return `${cents < 0 ? '-' : ''}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')} USD`;
}
