// Rate-limit configuration: SPEC.md values by default, bad values stop the start with the variable's name.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { effectiveLimits } from '../../src/modules/ratelimit/limits.js';

const base = { SVC_DATA_DIR: '/tmp/svc-config-test' };

describe('rate-limit configuration', () => {
  it('defaults to the SPEC.md limits and thresholds', () => {
    const limits = effectiveLimits(loadConfig(base));
    expect(limits).toMatchObject({
      windowSeconds: 60,
      anonymous: 20,
      wallet: { new: 30, established: 100, trusted: 500 },
      account: 100,
      thresholds: { established: 100, trusted: 1000 },
    });
    expect(Object.fromEntries(limits.endpoints)).toEqual({
      'GET /v1/wallet/balance': 60,
      'POST /v1/wallet/deposit': 10,
      'GET /v1/wallet/history': 30,
      'GET /v1/keys': 30,
      'POST /v1/keys': 10,
    });
  });

  it('scales every limit by SVC_RATE_LIMIT_MULTIPLIER, never below 1, thresholds untouched', () => {
    const limits = effectiveLimits(loadConfig({ ...base, SVC_RATE_LIMIT_MULTIPLIER: '0.01' }));
    expect(limits).toMatchObject({ anonymous: 1, wallet: { trusted: 5 }, account: 1 });
    expect(limits.thresholds).toEqual({ established: 100, trusted: 1000 });
  });

  it.each([
    [{ SVC_TRUST_PROXY: 'true' }, /SVC_TRUST_PROXY/],
    [{ SVC_TRUST_PROXY: '10.0.0.1, 2' }, /SVC_TRUST_PROXY.*"2"/],
    [{ SVC_TRUST_PROXY: '10.0.0.0/33' }, /SVC_TRUST_PROXY/],
    [{ SVC_RATE_LIMIT_ANONYMOUS: '0' }, /SVC_RATE_LIMIT_ANONYMOUS/],
    [{ SVC_RATE_LIMIT_WINDOW_SECONDS: '1.5' }, /SVC_RATE_LIMIT_WINDOW_SECONDS/],
    [
      { SVC_TRUST_ESTABLISHED_PAYMENTS: '50', SVC_TRUST_TRUSTED_PAYMENTS: '10' },
      /SVC_TRUST_TRUSTED_PAYMENTS/,
    ],
  ])('refuses %o', (env, message) => {
    expect(() => loadConfig({ ...base, ...env })).toThrow(message);
  });

  it('accepts proxy addresses, CIDRs and proxy-addr names', () => {
    const value = '10.9.0.1, 10.8.0.0/16, fd00::/8, loopback';
    expect(loadConfig({ ...base, SVC_TRUST_PROXY: value }).trustProxy).toBe(value);
  });
});
