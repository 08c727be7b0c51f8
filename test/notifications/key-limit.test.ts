// The "key budget reached" mail over real SMTP: an agent key (a key with a spending policy) refused by its
// daily or total budget mails the owner once per key per UTC day, naming the key by name and prefix (never
// the secret); the `keyLimitReached` preference is on by default and switches it off.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { type Account, createNotifyEnv, fact, type NotifyEnv, PROVIDER_ID, PUBLIC_URL } from './setup.js';

const DAY = 24 * 60 * 60_000;
const clock = new ManualClock(new Date());
let env: NotifyEnv;

beforeAll(async () => {
  env = await createNotifyEnv(clock);
});
afterAll(async () => {
  await env?.close();
});
beforeEach(() => clock.set(new Date()));

interface AgentKey {
  id: string;
  key: string;
  prefix: string;
}

async function agentKey(owner: Account, name: string, policy: object): Promise<AgentKey> {
  const res = await env.as(owner, 'POST', '/v1/keys', { name, policy });
  expect(res.statusCode).toBe(201);
  return res.json().data;
}

/** One paid call of `echo` (1 USDC) through the agent key. */
const callWith = (k: AgentKey) =>
  env.t.inject({
    method: 'POST',
    url: `/v1/execute/${PROVIDER_ID}/echo`,
    headers: { 'x-svc-api-key': k.key },
    payload: {},
  });

describe('key budget reached', () => {
  it('mails once per key per UTC day for the daily and then the total budget, naming the key but never its secret', async () => {
    const owner = await env.account();
    await env.fund(owner, '50');
    const alerts = await env.as(owner, 'GET', '/v1/billing/alerts');
    expect(alerts.json().emailNotifications.keyLimitReached).toBe(true); // on by default

    const agent = await agentKey(owner, 'research-agent', { daily_limit_usdc: '2', total_limit_usdc: '3' });
    const other = await agentKey(owner, 'other-agent', { daily_limit_usdc: '1' });
    for (let i = 0; i < 2; i++) expect((await callWith(agent)).statusCode).toBe(200);
    for (let i = 0; i < 3; i++) {
      const refused = await callWith(agent);
      expect(refused.statusCode).toBe(402);
      expect(refused.json().details.limitType).toBe('key_daily');
    }
    const [mail, ...more] = await env.deliveredTo(owner.email);
    expect(more).toHaveLength(0);
    expect(mail?.headers['x-svc-notification']).toBe('key_limit_reached');
    expect(mail?.subject).toBe('API key "research-agent" reached its daily budget (2.000000 USDC)');
    expect(mail?.text).toContain(`API key "research-agent" (${agent.prefix}...) was refused on`);
    expect(fact(mail, 'Key id')).toBe(agent.id);
    expect(fact(mail, 'Daily budget')).toBe('2000000 credits (2.000000 USDC)');
    expect(fact(mail, 'Spent today (UTC)')).toBe('2000000 credits (2.000000 USDC)');
    expect(fact(mail, 'Day (UTC)')).toBe(clock.now().toISOString().slice(0, 10));
    expect(mail?.text).toContain(`Change the key's policy (PUT): ${PUBLIC_URL}/v1/keys/${agent.id}/policy`);
    expect(mail?.text).toContain('"keyLimitReached": false');
    expect(mail?.raw).not.toContain(agent.key);

    // Another key of the same account reaching its own budget the same day gets its own mail.
    expect((await callWith(other)).statusCode).toBe(200);
    expect((await callWith(other)).statusCode).toBe(402);
    const [second, ...none] = await env.deliveredTo(owner.email);
    expect(none).toHaveLength(0);
    expect(second?.subject).toBe('API key "other-agent" reached its daily budget (1.000000 USDC)');
    expect(second?.raw).not.toContain(other.key);

    // Next UTC day: one more call fits the total budget of 3, then the total budget refuses, mailed once.
    clock.advance(DAY);
    expect((await callWith(agent)).statusCode).toBe(200);
    for (let i = 0; i < 2; i++) expect((await callWith(agent)).json().details.limitType).toBe('key_total');
    const [total, ...rest] = await env.deliveredTo(owner.email);
    expect(rest).toHaveLength(0);
    expect(total?.subject).toBe('API key "research-agent" reached its total budget (3.000000 USDC)');
    expect(fact(total, 'Spent in total')).toBe('3000000 credits (3.000000 USDC)');
    expect(total?.text).toContain('refused with HTTP 402 (SVC-CREDIT-002) from now on');
  });

  it('is not sent when switched off, nor for a per-call refusal, and the owner still receives nothing else', async () => {
    const owner = await env.account();
    await env.fund(owner, '20');
    const perCall = await agentKey(owner, 'tiny-calls', { per_call_max_usdc: '0.5' });
    expect((await callWith(perCall)).json().details.limitType).toBe('key_per_call');
    expect(await env.deliveredTo(owner.email)).toHaveLength(0);

    await env.alerts(owner, { emailNotifications: { keyLimitReached: false } });
    const budget = await agentKey(owner, 'budget', { daily_limit_usdc: '1' });
    expect((await callWith(budget)).statusCode).toBe(200);
    expect((await callWith(budget)).json().details.limitType).toBe('key_daily');
    expect(await env.deliveredTo(owner.email)).toHaveLength(0);
    expect((await env.as(owner, 'GET', '/v1/billing/alerts')).json().emailNotifications.keyLimitReached).toBe(
      false,
    );
  });
});
