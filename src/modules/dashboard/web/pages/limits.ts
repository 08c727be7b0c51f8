// Spending limits (GET/PUT /v1/billing/limits) and alert e-mails (GET/PUT /v1/billing/alerts).
import { api } from '../api.js';
import { field, h } from '../dom.js';
import type { Page } from '../main.js';
import { act, loading, pageTitle } from '../ui.js';

interface Limits {
  dailySpendLimitUsdc: string | null;
  perCallLimitUsdc: string | null;
}
interface Alerts {
  lowBalanceThresholdUsdc: string;
  emailNotifications: Record<string, boolean>;
}

const ALERT_LABELS: Record<string, string> = {
  lowBalance: 'Balance below the threshold',
  dailyLimitReached: 'Daily limit reached',
  keyLimitReached: "An API key's budget reached",
  paymentConfirmed: 'Payment confirmed (always sent)',
  creditsRefunded: 'Credits refunded',
  unusualActivity: 'Unusual activity',
  dailySummary: 'Daily summary',
  weeklySummary: 'Weekly summary',
};

const USDC_PATTERN = '(0|[1-9][0-9]{0,11})(\\.[0-9]{1,6})?';
/** "" → null (no limit); otherwise the typed string, checked by the API. */
const amountOrNull = (value: string) => (value.trim() === '' ? null : value.trim());
/** "10.000000" → "10" for the input; the API's string otherwise. */
const shortAmount = (value: string | null) => (value === null ? '' : value.replace(/\.?0+$/, '') || '0');

export const limitsPage: Page = {
  path: 'limits',
  title: 'Limits and alerts',
  async render(main) {
    main.append(...pageTitle('Limits and alerts'));
    const status = loading('your limits');
    main.append(status);
    const [limits, alerts] = await Promise.all([
      api<Limits>('GET', '/v1/billing/limits'),
      api<Alerts>('GET', '/v1/billing/alerts'),
    ]);
    status.remove();

    const daily = h('input', {
      type: 'text',
      name: 'daily',
      inputmode: 'decimal',
      pattern: USDC_PATTERN,
      value: shortAmount(limits.dailySpendLimitUsdc),
    });
    const perCall = h('input', {
      type: 'text',
      name: 'perCall',
      inputmode: 'decimal',
      pattern: USDC_PATTERN,
      value: shortAmount(limits.perCallLimitUsdc),
    });
    const saveLimits = h('button', { type: 'submit' }, 'Save limits');
    const limitsOut = h('div', { 'aria-live': 'polite' });
    const limitsForm = h(
      'form',
      { class: 'card' },
      h('h2', {}, 'Spending limits'),
      field('Daily limit (USDC)', daily, 'Calls past it are refused until midnight UTC. Empty: no limit.'),
      field('Per-call limit (USDC)', perCall, 'A call priced above it is refused. Empty: no limit.'),
      saveLimits,
      limitsOut,
    );
    limitsForm.addEventListener('submit', (event) => {
      event.preventDefault();
      void act(saveLimits, limitsOut, async () => {
        const saved = await api<Limits>('PUT', '/v1/billing/limits', {
          dailySpendLimitUsdc: amountOrNull(daily.value),
          perCallLimitUsdc: amountOrNull(perCall.value),
        });
        daily.value = shortAmount(saved.dailySpendLimitUsdc);
        perCall.value = shortAmount(saved.perCallLimitUsdc);
        return `Saved. Daily limit: ${saved.dailySpendLimitUsdc ?? 'none'}; per call: ${saved.perCallLimitUsdc ?? 'none'}.`;
      });
    });

    const threshold = h('input', {
      type: 'text',
      name: 'threshold',
      inputmode: 'decimal',
      pattern: USDC_PATTERN,
      value: shortAmount(alerts.lowBalanceThresholdUsdc),
    });
    const boxes = Object.keys(ALERT_LABELS).map((key) => {
      const box = h('input', {
        type: 'checkbox',
        name: key,
        id: `alert-${key}`,
        checked: alerts.emailNotifications[key] === true,
      });
      return {
        key,
        box,
        row: h('div', { class: 'check' }, box, h('label', { for: box.id }, ALERT_LABELS[key] ?? key)),
      };
    });
    const saveAlerts = h('button', { type: 'submit' }, 'Save alerts');
    const alertsOut = h('div', { 'aria-live': 'polite' });
    const alertsForm = h(
      'form',
      { class: 'card' },
      h('h2', {}, 'Alert e-mails'),
      field('Low-balance threshold (USDC)', threshold, '0 or empty: no low-balance alert.'),
      h('fieldset', {}, h('legend', {}, 'E-mail me when'), ...boxes.map((b) => b.row)),
      saveAlerts,
      alertsOut,
    );
    alertsForm.addEventListener('submit', (event) => {
      event.preventDefault();
      void act(saveAlerts, alertsOut, async () => {
        await api<Alerts>('PUT', '/v1/billing/alerts', {
          lowBalanceThresholdUsdc: amountOrNull(threshold.value),
          emailNotifications: Object.fromEntries(boxes.map((b) => [b.key, b.box.checked])),
        });
        return 'Alert settings saved.';
      });
    });
    main.append(limitsForm, alertsForm);
  },
};
