// `svc admin settlements-run` / `settlements-list`: the same functions as POST/GET /v1/admin/settlements.
import type { AdminCommand } from '../../lib/admin-command.js';
import { lastMidnightUtc } from './schedule.js';
import { retrySettlement, runSettlement } from './service.js';
import { listSettlements, toSettlementView } from './views.js';

export const payoutAdminCommands: AdminCommand[] = [
  {
    name: 'settlements-run',
    usage: 'settlements-run [--until ISO-8601]',
    summary: 'settle provider earnings made before --until (default: the last 00:00 UTC) and pay them',
    options: { until: { type: 'string' } },
    run: async (deps, args) => {
      const until = args.until ? new Date(args.until) : lastMidnightUtc(deps.clock.now());
      if (Number.isNaN(until.getTime())) throw new Error('--until must be an ISO-8601 date-time');
      if (until > deps.clock.now()) throw new Error('--until must not be in the future');
      return (await runSettlement(deps, until)).map(toSettlementView);
    },
  },
  {
    name: 'settlements-retry',
    usage: 'settlements-retry --settlement STL_ID',
    summary: 'send a failed payout again as a new transfer (after topping up the hot wallet)',
    options: { settlement: { type: 'string' } },
    run: async (deps, args) => {
      if (!args.settlement) throw new Error('--settlement is required');
      return toSettlementView(await retrySettlement(deps, args.settlement));
    },
  },
  {
    name: 'settlements-list',
    usage: 'settlements-list [--status pending|submitted|confirmed|failed|carried_over]',
    summary: 'the newest 100 settlements (e.g. --status failed: the payouts to look at)',
    options: { status: { type: 'string' } },
    run: async (deps, args) => {
      const statuses = ['pending', 'submitted', 'confirmed', 'failed', 'carried_over'] as const;
      const status = statuses.find((s) => s === args.status);
      if (args.status && !status) throw new Error(`--status must be one of ${statuses.join(', ')}`);
      const page = await listSettlements(deps.db.orm, status ? { status } : {}, { limit: 100 });
      return page.items;
    },
  },
];
