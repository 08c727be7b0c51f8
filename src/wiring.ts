// The modules' contributions that are not routes, gathered in one place for the entry points (app.ts,
// server.ts, cli.ts): background jobs and cross-module subscriptions. Plumbing (jobs runner, deps) never
// imports a module; each module hands its jobs and handlers over here instead (docs/architecture.md).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { AppDeps, CallFinished, DomainEvents } from './deps.js';
import type { BackgroundJob } from './jobs/runner.js';
import { purgeSignInStateJob } from './modules/auth/index.js';
import { expirePaymentsJob } from './modules/billing/index.js';
import { platformTransactionsJob } from './modules/chain/index.js';
import { depositWatcherJob } from './modules/deposits/index.js';
import { refreshEndpointStatsJob, sweepAbandonedCallsJob } from './modules/execution/index.js';
import { notificationJobs, outboxDepth, subscribeNotifications } from './modules/notifications/index.js';
import { dailySettlementJob, subscribePayouts } from './modules/payouts/index.js';

/** Every background job of the service, started by src/server.ts. */
export const backgroundJobs: BackgroundJob[] = [
  sweepAbandonedCallsJob,
  refreshEndpointStatsJob,
  ...notificationJobs,
  expirePaymentsJob,
  purgeSignInStateJob,
  platformTransactionsJob,
  depositWatcherJob,
  dailySettlementJob,
];

/** Subscribes the reacting modules to the hooks and events of the others (once per deps). */
export function subscribeModules(deps: AppDeps): void {
  subscribeNotifications(deps);
  subscribePayouts(deps);
}

/**
 * Business counters on the app's /metrics registry, next to the HTTP histogram: calls by outcome, credits
 * charged and refunded, deposits, sweeper refunds, debit statement sizes (counted from the modules'
 * events and the `call.refunded` hook, so no hot path knows about metrics) and the mail queue, read from
 * the outbox at scrape time. `close()` unsubscribes (the app's onClose).
 */
export function registerBusinessMetrics(deps: AppDeps, registry: Registry): { close(): void } {
  const registers = [registry];
  const calls = new Counter({
    name: 'svc_calls_total',
    help: 'Paid calls by outcome: charged, refunded, refund_pending (left to the sweeper), refused',
    labelNames: ['outcome'] as const,
    registers,
  });
  const charged = new Counter({
    name: 'svc_credits_charged_total',
    help: 'Credits debited for paid calls (refunded ones included; see svc_credits_refunded_total)',
    registers,
  });
  const refunded = new Counter({
    name: 'svc_credits_refunded_total',
    help: 'Credits refunded for failed calls, by reason (abandoned = by the sweeper)',
    labelNames: ['reason'] as const,
    registers,
  });
  const sweeper = new Counter({
    name: 'svc_sweeper_refunds_total',
    help: 'Abandoned calls refunded by the sweeper',
    registers,
  });
  const deposits = new Counter({ name: 'svc_deposits_total', help: 'USDC deposits credited', registers });
  const depositCredits = new Counter({
    name: 'svc_deposit_credits_total',
    help: 'Credits from USDC deposits',
    registers,
  });
  const batches = new Histogram({
    name: 'svc_debit_batch_size',
    help: 'Calls carried by one debit statement (1 = alone)',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
    registers,
  });
  new Gauge({
    name: 'svc_mail_queue',
    help: 'E-mails in the outbox: pending (waiting to be sent) and failed (given up)',
    labelNames: ['status'] as const,
    registers,
    async collect() {
      try {
        const depth = await outboxDepth(deps.db.orm);
        this.set({ status: 'pending' }, depth.pending);
        this.set({ status: 'failed' }, depth.failed);
      } catch {
        // The database is unreachable: leave the last values; /readyz says why.
      }
    },
  });

  const onCall = (c: CallFinished) => {
    calls.inc({ outcome: c.outcome });
    if (c.outcome !== 'refused') charged.inc(Number(c.credits));
  };
  const onDeposit = (d: DomainEvents['deposit.confirmed'][0]) => {
    deposits.inc();
    depositCredits.inc(Number(d.amountCredits));
  };
  const onStatement = (s: { size: number }) => batches.observe(s.size);
  deps.events.on('call.finished', onCall);
  deps.events.on('deposit.confirmed', onDeposit);
  deps.events.on('debit.statement', onStatement);
  // In the refund's transaction: a counter cannot roll back, but a refund that fails to commit leaves the
  // call pending, and the sweeper's later refund is then counted again; a rare overcount we accept.
  deps.hooks.on('call.refunded', 'metrics', async (_ex, r) => {
    refunded.inc({ reason: r.reason }, Number(r.credits));
    if (r.reason === 'abandoned') sweeper.inc();
  });
  return {
    close() {
      deps.events.off('call.finished', onCall);
      deps.events.off('deposit.confirmed', onDeposit);
      deps.events.off('debit.statement', onStatement);
    },
  };
}
