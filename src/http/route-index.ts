// Which methods a path answers to, for 405 Method Not Allowed with `Allow` (a GET on a POST-only route
// is a wrong method, not an unknown route). Built from the routes as they are registered, per app.
import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyInstance {
    routeIndex: RouteIndex;
  }
}

export class RouteIndex {
  private readonly routes: Array<{ pattern: RegExp; methods: Set<string> }> = [];

  add(url: string, methods: string[]) {
    const source = url
      .split('/')
      .map((part) =>
        part.startsWith(':') ? '[^/]+' : part === '*' ? '.*' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
      )
      .join('/');
    this.routes.push({ pattern: new RegExp(`^${source}/?$`), methods: new Set(methods) });
  }

  /** Methods of the routes matching `path`, sorted; empty when no route matches it at all. */
  allowed(path: string): string[] {
    const methods = new Set<string>();
    for (const r of this.routes) if (r.pattern.test(path)) for (const m of r.methods) methods.add(m);
    return [...methods].sort();
  }
}

export function registerRouteIndex(app: FastifyInstance) {
  const index = new RouteIndex();
  app.decorate('routeIndex', index);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    index.add(route.url, methods.map(String));
  });
}
