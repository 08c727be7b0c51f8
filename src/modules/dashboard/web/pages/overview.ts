// Balance, today's spend against the daily limit, and a 30-day spend chart (uPlot bars).
import uPlot from 'uplot';
import { api } from '../api.js';
import { h, table } from '../dom.js';
import { calls, daysAgo, usdc, utcDay } from '../format.js';
import type { Page } from '../main.js';
import { errorBox, loading, pageTitle } from '../ui.js';

interface Balance {
  balanceUsdc: string;
  dailySpentUsdc: string;
  dailySpendLimitUsdc: string | null;
  perCallLimitUsdc: string | null;
  status: string;
}
interface UsageByDay {
  summary: { totalUsdcSpent: string; totalCalls: number };
  daily: { date: string; usdcSpent: string; callCount: number }[];
}

export const overviewPage: Page = {
  path: 'overview',
  title: 'Balance',
  async render(main) {
    main.append(...pageTitle('Balance'));
    const status = loading('your balance');
    main.append(status);
    const balance = await api<Balance>('GET', '/v1/billing/balance');
    status.remove();
    main.append(
      h(
        'div',
        { class: 'tiles' },
        h(
          'div',
          { class: 'tile' },
          h('span', {}, 'Balance'),
          h('strong', { 'data-testid': 'balance' }, usdc(balance.balanceUsdc)),
        ),
        h(
          'div',
          { class: 'tile' },
          h('span', {}, 'Spent today (UTC)'),
          h('strong', {}, usdc(balance.dailySpentUsdc)),
        ),
        h(
          'div',
          { class: 'tile' },
          h('span', {}, 'Daily limit'),
          h('strong', {}, balance.dailySpendLimitUsdc ? usdc(balance.dailySpendLimitUsdc) : 'None'),
        ),
      ),
      h(
        'p',
        {},
        h('a', { href: '#topup' }, 'Top up by card'),
        ' · ',
        h('a', { href: '#deposit' }, 'Deposit USDC'),
      ),
    );

    const section = h(
      'section',
      { 'aria-labelledby': 'spend-title' },
      h('h2', { id: 'spend-title' }, 'Spend, last 30 days'),
    );
    main.append(section);
    const to = new Date();
    const from = daysAgo(29, to);
    try {
      const usage = await api<UsageByDay>('GET', `/v1/billing/usage?from=${utcDay(from)}&to=${utcDay(to)}`);
      section.append(
        h('p', {}, `${usdc(usage.summary.totalUsdcSpent)} over ${calls(usage.summary.totalCalls)}.`),
        spendChart(usage.daily, section),
        h(
          'details',
          {},
          h('summary', {}, 'Spend by day as a table'),
          table(
            ['Day', 'Spent', 'Calls'],
            usage.daily.filter((d) => d.callCount > 0).map((d) => [d.date, usdc(d.usdcSpent), d.callCount]),
            'Spend by day',
          ),
        ),
      );
    } catch (err) {
      section.append(errorBox(err));
    }
  },
};

function spendChart(daily: UsageByDay['daily'], container: HTMLElement): HTMLElement {
  const figure = h('figure', {
    class: 'chart',
    role: 'img',
    'aria-label': 'Bar chart of USDC spent per day over the last 30 days',
  });
  // Chart values are for drawing only; every figure shown as text comes from the API's strings.
  const xs = daily.map((d) => Date.parse(`${d.date}T00:00:00Z`) / 1000);
  const ys = daily.map((d) => Number(d.usdcSpent));
  const width = Math.max(280, Math.min(800, (container.clientWidth || 600) - 8));
  new uPlot(
    {
      width,
      height: 220,
      legend: { show: false },
      cursor: { show: false },
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
      axes: [{ stroke: '#333' }, { stroke: '#333', size: 60 }],
      series: [
        {},
        {
          label: 'USDC',
          fill: '#1d5fbf',
          stroke: '#1d5fbf',
          points: { show: false },
          paths: uPlot.paths.bars?.({ size: [0.7, 40] }),
        },
      ],
    },
    [xs, ys],
    figure,
  );
  return figure;
}
