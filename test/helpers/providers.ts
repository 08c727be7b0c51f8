// Real local HTTP provider servers for tests and benchmarks: each path is a behaviour.
//   /echo      200 JSON echo of what arrived (body, query, headers)   /bad-request  400 JSON
//   /fail      500 JSON                                               /hang         never answers
//   /close     destroys the socket                                    /garbage      200 non-JSON text
//   /oversized 200 with a 2 MiB JSON body                             /slow         200 after delay_ms (body or query; default 50)
// Every request is recorded (path, method, headers, raw body) so tests can check what a provider saw.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  query: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface ProviderServer {
  url: string;
  received: ReceivedRequest[];
  hits(path: string): number;
  close(): Promise<void>;
}

function json(res: http.ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export async function startProviderServer(opts: { record?: boolean } = {}): Promise<ProviderServer> {
  const record = opts.record ?? true;
  const received: ReceivedRequest[] = [];
  const counts = new Map<string, number>();
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const [path = '/', query = ''] = (req.url ?? '/').split('?');
      const body = Buffer.concat(chunks).toString('utf8');
      counts.set(path, (counts.get(path) ?? 0) + 1);
      if (record) received.push({ method: req.method ?? 'GET', path, query, headers: req.headers, body });
      const behaviour = path.split('/').pop();
      switch (behaviour) {
        case 'echo': {
          let parsed: unknown = null;
          try {
            parsed = body ? JSON.parse(body) : null;
          } catch {
            parsed = body;
          }
          return json(res, 200, { ok: true, received: parsed, query });
        }
        case 'bad-request':
          return json(res, 400, { error: 'bad input', hint: 'check the parameters' });
        case 'fail':
          return json(res, 500, { error: 'internal provider failure' });
        case 'hang':
          return; // never answers; the socket is destroyed on close()
        case 'close':
          return req.socket.destroy();
        case 'garbage':
          res.writeHead(200, { 'content-type': 'text/html' });
          return res.end('<html>definitely not json');
        case 'oversized':
          return json(res, 200, { blob: 'x'.repeat(2 * 1024 * 1024) });
        case 'slow': {
          let fromBody: unknown;
          try {
            fromBody = body ? (JSON.parse(body) as { delay_ms?: unknown }).delay_ms : undefined;
          } catch {
            fromBody = undefined;
          }
          const delay = Number(fromBody ?? new URLSearchParams(query).get('delay_ms') ?? 50);
          setTimeout(() => json(res, 200, { ok: true, delayed_ms: delay }), delay);
          return;
        }
        default:
          return json(res, 404, { error: 'no such path' });
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    hits: (path) => counts.get(path) ?? 0,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
