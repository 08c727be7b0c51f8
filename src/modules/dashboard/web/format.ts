// Display helpers. Amounts stay the API's decimal strings; nothing is recomputed in floating point.

/** "12.500000" → "12.50"; keeps every significant digit past the cents. */
export function usdc(amount: string): string {
  const negative = amount.startsWith('-');
  const plus = amount.startsWith('+');
  const bare = negative || plus ? amount.slice(1) : amount;
  const [whole = '0', frac = ''] = bare.split('.');
  const trimmed = frac.replace(/0+$/, '').padEnd(2, '0');
  return `${negative ? '-' : plus ? '+' : ''}${whole}.${trimmed} USDC`;
}

export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

/** YYYY-MM-DD of a date in UTC (the API's day boundary): the service's own rule, bundled into the page. */
export { utcDay } from '../../../lib/clock.js';

export function daysAgo(n: number, from = new Date()): Date {
  return new Date(from.getTime() - n * 86_400_000);
}

/** "1 call", "2 calls". */
export function calls(count: number): string {
  return `${count} ${count === 1 ? 'call' : 'calls'}`;
}
