// Serves the landing page (`/`), the dashboard shell (`/dashboard`) and its bundled assets. The dashboard
// talks to the public API only; its responses carry a strict CSP (no inline script, same-origin fetches).
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { AppError } from '../../errors/catalogue.js';
import { bundleDashboard, type DashboardAssets } from './bundle.js';
import { dashboardShell, landingPage } from './pages.js';

/** Same-origin everything; in devnet the page may also reach the local chain's RPC on loopback. */
export function contentSecurityPolicy(devnet: boolean): string {
  const connect = devnet ? "'self' http://127.0.0.1:* http://localhost:*" : "'self'";
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src ${connect}`,
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const TYPES: Record<string, string> = {
  'app.js': 'text/javascript; charset=utf-8',
  'style.css': 'text/css; charset=utf-8',
};

export const dashboardRoutes: FastifyPluginAsync = async (app) => {
  const { env } = app.deps.config;
  const csp = contentSecurityPolicy(env === 'devnet');
  const shell = dashboardShell(env);
  const landing = landingPage(env);
  // Built on first request, once for this app (a failed build is retried by the next request).
  let assets: Promise<DashboardAssets> | undefined;
  const loadAssets = () => {
    assets ??= bundleDashboard().catch((err: unknown) => {
      assets = undefined;
      throw err;
    });
    return assets;
  };

  const secure = (reply: FastifyReply) =>
    reply
      .header('content-security-policy', csp)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('x-frame-options', 'DENY');

  const html = (reply: FastifyReply, body: string) =>
    secure(reply)
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send(body);

  app.get('/', { schema: { hide: true }, config: { rateLimit: 'exempt' } }, async (_request, reply) =>
    html(reply, landing),
  );
  app.get(
    '/dashboard',
    { schema: { hide: true }, config: { rateLimit: 'exempt' } },
    async (_request, reply) => html(reply, shell),
  );
  app.get(
    '/dashboard/',
    { schema: { hide: true }, config: { rateLimit: 'exempt' } },
    async (_request, reply) => html(reply, shell),
  );

  app.get<{ Params: { file: string } }>(
    '/dashboard/assets/:file',
    {
      config: { rateLimit: 'exempt' },
      schema: {
        hide: true,
        params: {
          type: 'object',
          properties: { file: { type: 'string', maxLength: 64 } },
          required: ['file'],
        },
      },
    },
    async (request, reply) => {
      const type = TYPES[request.params.file];
      if (!type) throw new AppError('SVC-VAL-006');
      const contents = (await loadAssets()).files.get(request.params.file);
      if (!contents) throw new AppError('SVC-VAL-006');
      return secure(reply)
        .header('content-type', type)
        .header('cache-control', 'no-cache')
        .send(Buffer.from(contents));
    },
  );
};
