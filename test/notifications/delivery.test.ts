// Delivery of the outbox: SMTP outage and recovery with backoff, a crashed worker's lease, permanent
// rejections, two instances never sending a duplicate, and the .eml outbox mode without SMTP.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailer } from '../../src/adapters/mailer.js';
import { rows } from '../../src/db/index.js';
import type { AppDeps } from '../../src/deps.js';
import { ManualClock } from '../../src/lib/clock.js';
import { mailAdminCommands } from '../../src/modules/notifications/cli.js';
import { DELIVERY_LEASE_MS, deliverDueEmails } from '../../src/modules/notifications/delivery.js';
import { claimDueEmails, enqueueEmail, type outboxSummary } from '../../src/modules/notifications/outbox.js';
import { onAccountSuspended } from '../../src/modules/notifications/triggers.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { TestSmtpServer } from './smtp.js';

let t: TestApp;
let smtp: TestSmtpServer;
const clock = new ManualClock(new Date());
let seq = 0;

beforeAll(async () => {
  smtp = await new TestSmtpServer().start();
  t = await createTestApp({ clock, env: { SMTP_URL: smtp.url } });
});
afterAll(async () => {
  await t?.close();
  await smtp?.stop();
});

async function queue(n: number, to = 'someone@example.com'): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < n; i++) {
    const dedupeKey = `test:${++seq}`;
    keys.push(dedupeKey);
    await enqueueEmail(t.deps.db.orm, {
      kind: 'account_suspended',
      to,
      subject: `Message ${dedupeKey}`,
      text: `Body of ${dedupeKey}`,
      html: `<p>Body of ${dedupeKey}</p>`,
      dedupeKey,
      now: clock.now(),
    });
  }
  return keys;
}

interface OutboxRow {
  dedupe_key: string;
  status: string;
  attempts: number;
  last_error: string | null;
}

const outbox = (keys: string[]) =>
  rows<OutboxRow>(
    t.deps.db.orm,
    sql`SELECT dedupe_key, status, attempts, last_error FROM email_outbox WHERE dedupe_key IN ${keys} ORDER BY dedupe_key`,
  );

/** Attempts per row, highest first (rows queued in the same millisecond are claimed in any order). */
const attempts = (state: OutboxRow[]) => state.map((r) => r.attempts).sort((a, b) => b - a);

const receivedFor = (key: string) => smtp.received.filter((m) => m.subject === `Message ${key}`).length;

describe('SMTP outage', () => {
  it('keeps mail pending with exponential backoff while the server is down and sends each once after', async () => {
    await smtp.stop();
    const keys = await queue(3);

    expect(await deliverDueEmails(t.deps)).toBe(0);
    let state = await outbox(keys);
    expect(state.every((r) => r.status === 'pending')).toBe(true);
    // The first row was tried and failed; the rest of the batch waits with it, untried.
    expect(attempts(state)).toEqual([1, 0, 0]);
    expect(state.find((r) => r.attempts === 1)?.last_error).toMatch(/ECONNREFUSED|connect/i);

    // Not due again before the 30 s backoff.
    clock.advance(29_000);
    expect(await deliverDueEmails(t.deps)).toBe(0);
    expect(attempts(await outbox(keys))).toEqual([1, 0, 0]);

    clock.advance(1_000);
    expect(await deliverDueEmails(t.deps)).toBe(0);
    expect(attempts(await outbox(keys))).toEqual([2, 0, 0]);
    // Second failure: 60 s.
    clock.advance(59_000);
    expect(await deliverDueEmails(t.deps)).toBe(0);
    expect(attempts(await outbox(keys))).toEqual([2, 0, 0]);

    await smtp.start(); // same port
    clock.advance(1_000);
    expect(await deliverDueEmails(t.deps)).toBe(3);
    expect(await deliverDueEmails(t.deps)).toBe(0);
    state = await outbox(keys);
    expect(state.every((r) => r.status === 'sent' && r.last_error === null)).toBe(true);
    for (const k of keys) expect(receivedFor(k)).toBe(1);
  });

  it("sends a row claimed by a crashed worker only after that worker's lease, once", async () => {
    const [key] = (await queue(1)) as [string];
    // A worker claims the row and dies before sending.
    expect(await claimDueEmails(t.deps.db.orm, clock.now(), 10, DELIVERY_LEASE_MS)).toHaveLength(1);
    expect(await deliverDueEmails(t.deps)).toBe(0);
    clock.advance(DELIVERY_LEASE_MS);
    expect(await deliverDueEmails(t.deps)).toBe(1);
    expect(receivedFor(key)).toBe(1);
  });

  it('retries a temporarily refused message with backoff without holding back the others', async () => {
    smtp.greylist.add('later@example.com');
    const [held] = (await queue(1, 'later@example.com')) as [string];
    const others = await queue(3);
    expect(await deliverDueEmails(t.deps)).toBe(3);
    for (const k of others) expect(receivedFor(k)).toBe(1);
    const [row] = await outbox([held]);
    expect(row).toMatchObject({ status: 'pending', attempts: 1 });
    expect(row?.last_error).toMatch(/451/);
    smtp.greylist.clear();
    expect(await deliverDueEmails(t.deps)).toBe(0); // not before its retry time
    clock.advance(30_000);
    expect(await deliverDueEmails(t.deps)).toBe(1);
    expect(receivedFor(held)).toBe(1);
  });

  it('retries a permanently refused message a few times, then marks it failed', async () => {
    smtp.refuse.add('nobody@example.com');
    const keys = await queue(1, 'nobody@example.com');
    for (let i = 0; i < 8; i++) {
      await deliverDueEmails(t.deps);
      clock.advance(60 * 60_000);
    }
    const [row] = await outbox(keys);
    expect(row?.status).toBe('failed');
    expect(row?.attempts).toBe(5);
    expect(row?.last_error).toMatch(/550/);
  });
});

describe('svc admin mail-*', () => {
  const command = (name: string) => {
    const c = mailAdminCommands.find((x) => x.name === name);
    if (!c) throw new Error(`no command ${name}`);
    return (args: Record<string, string | undefined> = {}) => c.run(t.deps, args);
  };

  it('lists undelivered mail, requeues a failed one, and sends a test mail', async () => {
    smtp.refuse.add('gone@example.com');
    const [key] = (await queue(1, 'gone@example.com')) as [string];
    for (let i = 0; i < 6; i++) {
      await deliverDueEmails(t.deps);
      clock.advance(60 * 60_000);
    }
    const status = (await command('mail-status')()) as Awaited<ReturnType<typeof outboxSummary>>;
    expect(status.undelivered.find((r) => r.to_address === 'gone@example.com')).toMatchObject({
      status: 'failed',
      attempts: 5,
    });
    expect(status.counts).toContainEqual({
      status: 'failed',
      kind: 'account_suspended',
      count: expect.any(Number),
    });

    smtp.refuse.delete('gone@example.com');
    expect(await command('mail-retry')({})).toEqual({ requeued: expect.any(Number) });
    await deliverDueEmails(t.deps);
    expect(receivedFor(key)).toBe(1);

    const result = await command('mail-test')({ to: 'Ops@Example.com' });
    expect(result).toMatchObject({ delivered: true, transport: 'smtp' });
    const [mail] = smtp.to('ops@example.com');
    expect(mail?.subject).toBe('Test e-mail from Svc');
    expect(mail?.headers['x-svc-notification']).toBe('test');
  });
});

describe('several instances', () => {
  it('never send a duplicate when delivering the same outbox at once', async () => {
    // A second instance of the service on the same database (PostgreSQL), or a second delivery worker with
    // its own SMTP transport on the same embedded database (PGlite, which one process owns).
    const second: TestApp | undefined = t.schema
      ? await createTestApp({ clock, schema: t.schema, env: { SMTP_URL: smtp.url } })
      : undefined;
    const other: AppDeps = second?.deps ?? { ...t.deps, mailer: createMailer(t.config) };
    try {
      const keys = await queue(40);
      const counts = await Promise.all([
        deliverDueEmails(t.deps),
        deliverDueEmails(other),
        deliverDueEmails(t.deps),
        deliverDueEmails(other),
      ]);
      expect(counts.reduce((a, b) => a + b, 0)).toBe(40);
      for (const k of keys) expect(receivedFor(k)).toBe(1);
      expect((await outbox(keys)).every((r) => r.status === 'sent' && r.attempts === 1)).toBe(true);
    } finally {
      if (second) await second.close();
      else other.mailer.close();
    }
  });
});

describe('outbox mode (no SMTP_URL)', () => {
  it('writes each mail as an .eml file under <data dir>/outbox and marks it sent', async () => {
    // The mailer createDeps wires when SMTP_URL is unset, on this instance's database and data dir.
    const config = { ...t.config, smtpUrl: undefined };
    const local: AppDeps = { ...t.deps, config, mailer: createMailer(config) };
    try {
      expect(local.mailer.mode).toBe('outbox');
      const { accountId } = await t.createAccount('reader@example.com');
      await t.deps.db.orm.transaction((tx) => onAccountSuspended(tx, local, { accountId, reason: 'test' }));
      expect(await deliverDueEmails(local)).toBe(1);
      const dir = path.join(config.dataDir, 'outbox');
      const files = readdirSync(dir);
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(/^mail_[0-9a-z]+-account_suspended\.eml$/);
      const eml = readFileSync(path.join(dir, files[0] as string), 'utf8');
      expect(eml).toContain('To: reader@example.com');
      expect(eml).toContain('Subject: Your account has been suspended');
      expect(eml).toContain('Content-Type: text/plain');
      expect(eml).toContain('Content-Type: text/html');
      const [row] = await rows<{ status: string }>(
        t.deps.db.orm,
        sql`SELECT status FROM email_outbox WHERE account_id = ${accountId}`,
      );
      expect(row?.status).toBe('sent');
      expect(smtp.to('reader@example.com')).toHaveLength(0);
    } finally {
      local.mailer.close();
    }
  });
});
