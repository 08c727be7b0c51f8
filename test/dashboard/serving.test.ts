// How the landing page, the dashboard shell and its assets are served: headers (CSP, nosniff, framing),
// no inline script, the bundle built from the source, unknown assets, and no rate-limit cost.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentSecurityPolicy } from '../../src/modules/dashboard/index.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

function expectSecurityHeaders(headers: Record<string, unknown>) {
  const csp = String(headers['content-security-policy']);
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("script-src 'self'");
  expect(csp).not.toContain('unsafe-inline');
  expect(csp).not.toContain('unsafe-eval');
  expect(csp).toContain("frame-ancestors 'none'");
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['set-cookie']).toBeUndefined();
}

describe('landing page and dashboard shell', () => {
  it('serves / as a small landing page linking the dashboard, the API docs and the MCP endpoint', async () => {
    const res = await t.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expectSecurityHeaders(res.headers);
    expect(res.body).toContain('href="/dashboard"');
    expect(res.body).toContain('href="/docs"');
    expect(res.body).toContain('/mcp');
  });

  it('serves /dashboard with no inline script and the environment for the dev wallet', async () => {
    const res = await t.inject({ method: 'GET', url: '/dashboard' });
    expect(res.statusCode).toBe(200);
    expectSecurityHeaders(res.headers);
    const scripts = res.body.match(/<script[^>]*>/g) ?? [];
    expect(scripts).toEqual(['<script type="module" src="/dashboard/assets/app.js">']);
    expect(res.body).toContain('<meta name="svc-env" content="devnet">');
    expect(res.body).not.toMatch(/ style=/);
  });

  it('serves the bundled script and stylesheet, and 404 for anything else under assets', async () => {
    const js = await t.inject({ method: 'GET', url: '/dashboard/assets/app.js' });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expectSecurityHeaders(js.headers);
    // Bundled: no bare imports left for the browser to resolve, and the pages' code is in it.
    expect(js.body).not.toMatch(/from\s*["'](viem|uplot|qrcode-generator)["']/);
    expect(js.body).toContain('/v1/billing/limits');
    const css = await t.inject({ method: 'GET', url: '/dashboard/assets/style.css' });
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.body).toContain('.uplot');
    for (const url of [
      '/dashboard/assets/main.ts',
      '/dashboard/assets/..%2Fbundle.ts',
      '/dashboard/assets/x.js',
    ]) {
      const res = await t.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json().error.code).toBe('SVC-VAL-006');
    }
  });

  it('does not count the static pages against the anonymous rate limit', async () => {
    const answers = [];
    for (let i = 0; i < 30; i++)
      answers.push((await t.inject({ method: 'GET', url: '/dashboard' })).statusCode);
    expect(answers.every((s) => s === 200)).toBe(true);
  });

  it('lets the page reach a loopback chain RPC only in devnet', () => {
    expect(contentSecurityPolicy(true)).toContain("connect-src 'self' http://127.0.0.1:*");
    expect(contentSecurityPolicy(false)).toContain("connect-src 'self';");
  });
});
