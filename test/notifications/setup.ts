// Shared setup of the notification tests: the real app with SMTP pointed at a local smtp-server, a local
// provider registered through the admin API (`echo` costs 1 USDC and succeeds, `fail` costs 0.5 USDC and
// answers 500, so it is refunded), and requests as an account.
import { sql } from 'drizzle-orm';
import { expect } from 'vitest';
import { one } from '../../src/db/index.js';
import type { ManualClock } from '../../src/lib/clock.js';
import { deliverDueEmails } from '../../src/modules/notifications/delivery.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { type ProviderServer, startProviderServer } from '../helpers/providers.js';
import { type ReceivedMail, TestSmtpServer } from './smtp.js';

export const PUBLIC_URL = 'https://svc.example.test';
export const FROM = 'Svc Alerts <alerts@svc.example.test>';
export const PROVIDER_ID = 'notify-test-provider';

export interface Account {
  accountId: string;
  apiKey: string;
  keyId: string;
  email: string;
}

export interface NotifyEnv {
  t: TestApp;
  smtp: TestSmtpServer;
  /** Base URL of the local provider server (paths /echo, /fail, ...). */
  providerUrl: string;
  account(): Promise<Account>;
  as(
    a: Account,
    method: 'POST' | 'PUT' | 'GET',
    url: string,
    payload?: object,
  ): ReturnType<TestApp['inject']>;
  fund(a: Account, usdc: string): Promise<void>;
  alerts(a: Account, body: object): Promise<void>;
  /** One paid call through POST /v1/execute. */
  execute(a: Account, slug: 'echo' | 'fail'): ReturnType<TestApp['inject']>;
  /** Runs the delivery job and returns what the address received in this run. */
  deliveredTo(email: string): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

export async function createNotifyEnv(clock: ManualClock): Promise<NotifyEnv> {
  const smtp = await new TestSmtpServer().start();
  const provider: ProviderServer = await startProviderServer({ record: false });
  const t = await createTestApp({
    clock,
    env: {
      SMTP_URL: smtp.url,
      SVC_PUBLIC_URL: PUBLIC_URL,
      MAIL_FROM: FROM,
      SVC_RATE_LIMIT_MULTIPLIER: '1000',
    },
  });
  const endpoint = (slug: string, price: string) => ({
    slug,
    method: 'POST',
    path: `/${slug}`,
    description: `Endpoint ${slug}`,
    parameters: {},
    pricing: { model: 'per_call', price_per_call_usdc: price },
    timeout_ms: 2_000,
  });
  const res = await t.admin('POST', '/v1/admin/providers', {
    provider_id: PROVIDER_ID,
    name: 'Notify Test Provider',
    description: 'Local provider for the notification tests',
    category: 'utility',
    base_url: provider.url,
    endpoints: [endpoint('echo', '1'), endpoint('fail', '0.5')],
  });
  expect(res.statusCode).toBe(201);

  const as: NotifyEnv['as'] = (a, method, url, payload) =>
    t.inject({ method, url, headers: { 'x-svc-api-key': a.apiKey }, ...(payload ? { payload } : {}) });
  return {
    t,
    smtp,
    providerUrl: provider.url,
    as,
    async account() {
      const a = await t.createAccount();
      const row = await one<{ email: string }>(
        t.deps.db.orm,
        sql`SELECT email FROM accounts WHERE id = ${a.accountId}`,
      );
      return { ...a, email: row?.email as string };
    },
    async fund(a, usdc) {
      const r = await t.admin('POST', `/v1/admin/accounts/${a.accountId}/credits`, {
        amount_usdc: usdc,
        description: 'test funding',
      });
      expect(r.statusCode).toBe(201);
    },
    async alerts(a, body) {
      expect((await as(a, 'PUT', '/v1/billing/alerts', body)).statusCode).toBe(200);
    },
    execute: (a, slug) => as(a, 'POST', `/v1/execute/${PROVIDER_ID}/${slug}`, {}),
    async deliveredTo(email) {
      const before = smtp.to(email).length;
      await deliverDueEmails(t.deps);
      return smtp.to(email).slice(before);
    },
    async close() {
      await t.close();
      await provider.close();
      await smtp.stop();
    },
  };
}

/** The value of a "Label: value" line of a mail's text part. */
export function fact(mail: ReceivedMail | undefined, label: string): string | undefined {
  const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^\\s*${escaped}:\\s+(.*)$`, 'm').exec(mail?.text ?? '')?.[1];
}
