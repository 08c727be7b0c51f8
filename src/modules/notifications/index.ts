// E-mail notifications: the outbox (`email_outbox`), its delivery, digests, unusual-activity alerts and
// the mails other modules' events cause. Those modules never import this one: they run hooks
// (deps.hooks, DomainHooks in src/deps.ts) that subscribeNotifications attaches at wiring time.
import type { AppDeps } from '../../deps.js';
import { onKeyLimitReached } from './key-limit-mail.js';
import {
  afterBalanceDecrease,
  onAccountSuspended,
  onCallRefunded,
  onDailyLimitReached,
  onLoginCodeIssued,
  onPaymentCompleted,
  onSettlementOutcome,
} from './triggers.js';

export { mailAdminCommands } from './cli.js';
export { subscribeDepositMails } from './deposit-mail.js';
export { emailDeliveryJob, emailDigestsJob, notificationJobs, unusualActivityJob } from './jobs.js';
export { type EmailKind, enqueueEmail, outboxDepth } from './outbox.js';

/** Attaches the mails to the hooks of the modules that cause them. Safe to call again (replaces). */
export function subscribeNotifications(deps: AppDeps): void {
  const { hooks } = deps;
  hooks.on('balance.decreased', 'notifications', (ex, e) => afterBalanceDecrease(ex, deps, e));
  hooks.on('daily-limit.reached', 'notifications', (ex, e) => onDailyLimitReached(ex, deps, e));
  hooks.on('key-limit.reached', 'notifications', (ex, e) => onKeyLimitReached(ex, deps, e));
  hooks.on('call.refunded', 'notifications', (ex, e) => onCallRefunded(ex, deps, e));
  hooks.on('payment.completed', 'notifications', (ex, e) => onPaymentCompleted(ex, deps, e));
  hooks.on('account.suspended', 'notifications', (ex, e) => onAccountSuspended(ex, deps, e));
  hooks.on('login-code.issued', 'notifications', (ex, e) => onLoginCodeIssued(ex, deps, e));
  hooks.on('settlement.paid', 'notifications', (ex, e) =>
    onSettlementOutcome(ex, deps, { outcome: 'paid', ...e }),
  );
  hooks.on('settlement.failed', 'notifications', (ex, e) =>
    onSettlementOutcome(ex, deps, { outcome: 'failed', ...e }),
  );
}
