// A real headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core), the service on a real
// port, axe-core checks and screenshots into test-results/dashboard/ (gitignored; kept by CI as artifacts).
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { one } from '../../src/db/index.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = path.resolve('test-results/dashboard');
const AXE_SOURCE = readFileSync(path.resolve('node_modules/axe-core/axe.min.js'), 'utf8');

/** A port that was free a moment ago: the checkout's redirect URLs need SVC_PUBLIC_URL before listen. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface Served {
  t: TestApp;
  base: string;
}

/** The real app on a real loopback port, with a public URL that matches it. */
export async function serveApp(env: Record<string, string> = {}): Promise<Served> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t = await createTestApp({ env: { SVC_PUBLIC_URL: base, SVC_RATE_LIMIT_MULTIPLIER: '1000', ...env } });
  await t.app.listen({ port, host: '127.0.0.1' });
  return { t, base };
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  }
  const userDataDir = mkdtempSync(path.join(os.tmpdir(), 'svc-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 900 },
    acceptDownloads: true,
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** A page with the tests' default timeout; Content Security Policy errors in its console go to `cspErrors`. */
export async function newPage(browser: Browser, cspErrors: string[] = []): Promise<Page> {
  const page = await browser.context.newPage();
  page.setDefaultTimeout(45_000);
  page.on('console', (msg) => {
    if (/Content Security Policy/i.test(msg.text())) cspErrors.push(msg.text());
  });
  return page;
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** Runs axe-core in the page (through the DevTools protocol, so the page's CSP stays as served). */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run()).violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target })),
    }));
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** axe-core finds no serious or critical violation; then a screenshot for the docs and CI artifacts. */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  expect(await seriousViolations(page), `axe on ${name}`).toEqual([]);
  await screenshot(page, name);
}

/** Opens a dashboard page by its hash route and waits for its heading. */
export async function openPage(page: Page, served: Served, hash: string, heading: string): Promise<void> {
  await page.goto(`${served.base}/dashboard#${hash}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

/** The latest sign-in code e-mailed to `email`, read from the outbox. */
export async function loginCode(served: Served, email: string): Promise<string> {
  for (let i = 0; i < 50; i++) {
    const mail = await one<{ text_body: string }>(
      served.t.deps.db.orm,
      sql`SELECT text_body FROM email_outbox WHERE kind = 'login_code' AND to_address = ${email}
          ORDER BY id DESC LIMIT 1`,
    );
    const code = /\b(\d{6})\b/.exec(mail?.text_body ?? '')?.[1];
    if (code) return code;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('no login code in the outbox');
}

/** Signs in through the page with the e-mailed code; ends on the balance page. */
export async function signInByEmail(page: Page, served: Served, email: string): Promise<void> {
  await page.goto(`${served.base}/dashboard`);
  await page.getByLabel('E-mail address').fill(email);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await page.getByLabel('6-digit code').fill(await loginCode(served, email));
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'Balance' }).waitFor();
}

/** The page's stored session as request headers, for checking what it did through the API. */
export async function sessionHeaders(page: Page): Promise<Record<string, string>> {
  const raw = await page.evaluate(() => sessionStorage.getItem('svc.session'));
  const session = JSON.parse(raw ?? '{}') as { token?: string };
  return { authorization: `Bearer ${session.token}` };
}
