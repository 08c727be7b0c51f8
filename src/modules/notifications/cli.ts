// E-mail sub-commands of `svc admin` (listed in src/cli-admin.ts): look at the outbox, requeue mail the
// SMTP server refused for good, and check the transport with a test mail.

import type { AppDeps } from '../../deps.js';
import type { AdminCommand } from '../../lib/admin-command.js';
import { newId } from '../../lib/ids.js';
import { deliverDueEmails } from './delivery.js';
import { enqueueEmail, outboxSummary, requeueFailed } from './outbox.js';
import { renderMail } from './render.js';

async function sendTestMail(deps: AppDeps, to: string) {
  const now = deps.clock.now();
  const content = renderMail(deps.config.publicUrl, {
    subject: 'Test e-mail from Svc',
    intro: [`This is a test sent at ${now.toISOString()} to check the e-mail settings. Nothing to do.`],
    facts: [
      ['Transport', deps.mailer.mode === 'smtp' ? 'SMTP (SMTP_URL)' : 'outbox files (no SMTP_URL)'],
      ['From', deps.config.mailFrom],
    ],
    links: [{ label: 'Service', url: deps.config.publicUrl }],
    noFooter: true,
  });
  const dedupeKey = `test:${newId('evt')}`;
  await enqueueEmail(deps.db.orm, { kind: 'test', to, dedupeKey, now, ...content });
  // Delivers this mail and anything else due, exactly as the background job would.
  const sent = await deliverDueEmails(deps);
  const summary = await outboxSummary(deps.db.orm);
  const stuck = summary.undelivered.find((r) => r.kind === 'test' && r.to_address === to);
  return stuck
    ? { delivered: false, transport: deps.mailer.mode, error: stuck.last_error }
    : { delivered: true, transport: deps.mailer.mode, sent_in_this_run: sent };
}

export const mailAdminCommands: AdminCommand[] = [
  {
    name: 'mail-status',
    usage: 'mail-status',
    summary: 'e-mail outbox: counts by status and kind, and mail not delivered yet',
    options: {},
    run: (deps) => outboxSummary(deps.db.orm),
  },
  {
    name: 'mail-retry',
    usage: 'mail-retry [--id MAIL_ID]',
    summary: 'requeue failed e-mails (one, or all of them)',
    options: { id: { type: 'string' } },
    run: async (deps, args) => ({ requeued: await requeueFailed(deps.db.orm, deps.clock.now(), args.id) }),
  },
  {
    name: 'mail-test',
    usage: 'mail-test --to ADDRESS',
    summary: 'send a test e-mail now through the configured transport',
    options: { to: { type: 'string' } },
    run: (deps, args) => {
      if (!args.to) throw new Error('--to is required');
      return sendTestMail(deps, args.to.trim().toLowerCase());
    },
  },
];
