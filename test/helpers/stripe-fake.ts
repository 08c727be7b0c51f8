// A local HTTP server speaking Stripe's wire format for the calls the service makes (create a Checkout
// Session), plus builders for the webhook events Stripe would send about those sessions, signed with the
// SDK's own test helper. Point the service at it with STRIPE_API_BASE=<fake.url>.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

export const FAKE_STRIPE_KEY = 'sk_test_fake_0123456789';
export const FAKE_WEBHOOK_SECRET = 'whsec_fake_0123456789abcdef';

type Json = Record<string, unknown>;

export interface FakeSession {
  id: string;
  object: 'checkout.session';
  mode: string;
  status: 'open' | 'complete' | 'expired';
  payment_status: 'unpaid' | 'paid';
  amount_total: number;
  currency: string;
  client_reference_id: string | null;
  metadata: Record<string, string>;
  payment_intent: string | null;
  success_url: string;
  cancel_url: string;
  expires_at: number;
  url: string | null;
  created: number;
}

export interface StripeFake {
  url: string;
  sessions: Map<string, FakeSession>;
  /** Every API request received: method, path, form body (decoded), headers. */
  requests: { method: string; path: string; form: Json; headers: http.IncomingHttpHeaders }[];
  /** The next API call answers this Stripe error instead (e.g. 400 invalid_request_error). */
  failNext(status: number, message: string): void;
  /** Events about a session, as Stripe would post them (bodies are JSON strings). */
  completed(sessionId: string, opts?: { paymentStatus?: 'paid' | 'unpaid' }): string;
  expired(sessionId: string): string;
  asyncPaymentFailed(sessionId: string): string;
  /** charge.refunded with the cumulative refunded amount (defaults to the full amount). */
  refunded(sessionId: string, amountRefunded?: number, opts?: { withMetadata?: boolean }): string;
  /** Stripe-Signature header for a body, signed by the SDK's generateTestHeaderString. */
  sign(payload: string, opts?: { timestamp?: number; secret?: string }): string;
  close(): Promise<void>;
}

const rid = (prefix: string) => `${prefix}_test_${randomBytes(12).toString('hex')}`;

/** Decodes Stripe's form encoding (`a[b][0][c]=v`) into nested objects/arrays. */
export function decodeStripeForm(body: string): Json {
  const root: Json = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const parts = key.split(/\[|\]\[|\]/).filter((p) => p !== '');
    let node: Json = root;
    parts.forEach((part, i) => {
      if (i === parts.length - 1) {
        node[part] = value;
        return;
      }
      if (node[part] === undefined) node[part] = {};
      node = node[part] as Json;
    });
  }
  return root;
}

function stripeError(res: http.ServerResponse, status: number, message: string) {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': rid('req') });
  res.end(JSON.stringify({ error: { type: 'invalid_request_error', message } }));
}

export async function startStripeFake(): Promise<StripeFake> {
  const sessions = new Map<string, FakeSession>();
  const byIdempotencyKey = new Map<string, FakeSession>();
  const paymentIntents = new Map<string, string>();
  const requests: StripeFake['requests'] = [];
  let nextFailure: { status: number; message: string } | undefined;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString('utf8');
    });
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      const form = decodeStripeForm(body);
      requests.push({ method: req.method ?? 'GET', path, form, headers: req.headers });
      if (req.headers.authorization !== `Bearer ${FAKE_STRIPE_KEY}`) {
        return stripeError(res, 401, 'Invalid API Key provided');
      }
      if (nextFailure) {
        const { status, message } = nextFailure;
        nextFailure = undefined;
        return stripeError(res, status, message);
      }
      if (req.method === 'POST' && path === '/v1/checkout/sessions') {
        const key = req.headers['idempotency-key'];
        const existing = typeof key === 'string' ? byIdempotencyKey.get(key) : undefined;
        const session = existing ?? createSession(form);
        if (!session) return stripeError(res, 400, 'Missing required param: line_items.');
        sessions.set(session.id, session);
        if (typeof key === 'string') byIdempotencyKey.set(key, session);
        res.writeHead(200, { 'content-type': 'application/json', 'request-id': rid('req') });
        return res.end(JSON.stringify(session));
      }
      const m = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path);
      if (req.method === 'GET' && m?.[1] && sessions.has(m[1])) {
        res.writeHead(200, { 'content-type': 'application/json', 'request-id': rid('req') });
        return res.end(JSON.stringify(sessions.get(m[1])));
      }
      return stripeError(res, 404, `Unrecognized request URL (${req.method}: ${path})`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  function createSession(form: Json): FakeSession | undefined {
    const item = (form.line_items as Json | undefined)?.['0'] as Json | undefined;
    const priceData = item?.price_data as Json | undefined;
    if (!priceData) return undefined;
    const id = rid('cs');
    return {
      id,
      object: 'checkout.session',
      mode: String(form.mode),
      status: 'open',
      payment_status: 'unpaid',
      amount_total: Number(priceData.unit_amount) * Number(item?.quantity ?? 1),
      currency: String(priceData.currency),
      client_reference_id: (form.client_reference_id as string | undefined) ?? null,
      metadata: (form.metadata as Record<string, string> | undefined) ?? {},
      payment_intent: null,
      success_url: String(form.success_url),
      cancel_url: String(form.cancel_url),
      expires_at: Number(form.expires_at),
      url: `https://checkout.stripe.com/c/pay/${id}`,
      created: Math.floor(Date.now() / 1000),
    };
  }

  const session = (id: string) => {
    const s = sessions.get(id);
    if (!s) throw new Error(`fake stripe: no session ${id}`);
    return s;
  };
  const intentOf = (id: string) => {
    let pi = paymentIntents.get(id);
    if (!pi) {
      pi = rid('pi');
      paymentIntents.set(id, pi);
    }
    return pi;
  };
  const event = (type: string, object: unknown) =>
    JSON.stringify(
      {
        id: rid('evt'),
        object: 'event',
        api_version: '2025-01-27.acacia',
        created: Math.floor(Date.now() / 1000),
        livemode: false,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
        type,
        data: { object },
      },
      null,
      2,
    );
  const signer = new Stripe(FAKE_STRIPE_KEY);

  return {
    url: `http://127.0.0.1:${port}`,
    sessions,
    requests,
    failNext(status, message) {
      nextFailure = { status, message };
    },
    completed(id, opts = {}) {
      const paid = (opts.paymentStatus ?? 'paid') === 'paid';
      return event('checkout.session.completed', {
        ...session(id),
        status: 'complete',
        payment_status: paid ? 'paid' : 'unpaid',
        payment_intent: intentOf(id),
        url: null,
      });
    },
    expired(id) {
      return event('checkout.session.expired', { ...session(id), status: 'expired', url: null });
    },
    asyncPaymentFailed(id) {
      return event('checkout.session.async_payment_failed', {
        ...session(id),
        status: 'complete',
        payment_intent: intentOf(id),
      });
    },
    refunded(id, amountRefunded, opts = {}) {
      const s = session(id);
      const refunded = amountRefunded ?? s.amount_total;
      return event('charge.refunded', {
        id: rid('ch'),
        object: 'charge',
        amount: s.amount_total,
        amount_captured: s.amount_total,
        amount_refunded: refunded,
        refunded: refunded >= s.amount_total,
        currency: s.currency,
        paid: true,
        status: 'succeeded',
        payment_intent: intentOf(id),
        // Stripe does not copy the session's metadata to the charge; tests choose.
        metadata: opts.withMetadata ? s.metadata : {},
      });
    },
    sign(payload, opts = {}) {
      return signer.webhooks.generateTestHeaderString({
        payload,
        secret: opts.secret ?? FAKE_WEBHOOK_SECRET,
        ...(opts.timestamp === undefined ? {} : { timestamp: opts.timestamp }),
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
