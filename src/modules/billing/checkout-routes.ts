// The local processor's checkout page (GET /checkout/:sessionId, Pay and Cancel forms) and the receipt
// page. Pay and Cancel go through applyProcessorEvent like Stripe's webhooks, keyed by session, so a
// double-submitted Pay credits once. No credentials: the unguessable session id is the capability.

import { sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply } from 'fastify';
import { one, toDate } from '../../db/index.js';
import { pathIdSchema } from '../../http/path-ids.js';
import { applyProcessorEvent } from './events.js';
import { checkoutPage, closedCheckoutPage, notFoundPage, receiptPage } from './pages.js';
import type { PaymentRow } from './payments.js';

const html = (reply: FastifyReply, status: number, body: string) =>
  reply
    .status(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; form-action *")
    .send(body);

/** Stripe substitutes {CHECKOUT_SESSION_ID} in redirect URLs; the local page does the same. */
const redirectTarget = (url: string, sessionId: string) => url.replaceAll('{CHECKOUT_SESSION_ID}', sessionId);

const SessionParams = {
  type: 'object',
  properties: { sessionId: pathIdSchema(128) },
  required: ['sessionId'],
} as const;

/** Receipts always; the checkout page only with the local processor (Stripe hosts its own). */
export const checkoutPageRoutes =
  (withLocalCheckout: boolean): FastifyPluginAsync =>
  async (app) => {
    if (withLocalCheckout) registerLocalCheckout(app);

    app.get<{ Params: { paymentId: string } }>(
      '/receipts/:paymentId',
      {
        schema: {
          hide: true,
          params: {
            type: 'object',
            properties: { paymentId: pathIdSchema(64) },
            required: ['paymentId'],
          },
        },
      },
      async (request, reply) => {
        const p = await one<PaymentRow>(
          app.deps.db.orm,
          sql`SELECT * FROM payments WHERE id = ${request.params.paymentId}`,
        );
        if (!p) return html(reply, 404, notFoundPage('Receipt'));
        return html(reply, 200, receiptPage(p));
      },
    );
  };

function registerLocalCheckout(app: FastifyInstance) {
  // Browsers post forms url-encoded; the buttons carry no fields, so the body is read and ignored.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_r, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  );
  const { db, clock } = app.deps;
  const findLocal = (sessionId: string) =>
    one<PaymentRow>(
      db.orm,
      sql`SELECT * FROM payments WHERE session_id = ${sessionId} AND processor = 'local'`,
    );
  /** A pending session past its lifetime is expired now rather than at the job's next tick. */
  const isOpen = (p: PaymentRow) => p.status === 'pending' && toDate(p.expires_at) > clock.now();

  app.get<{ Params: { sessionId: string } }>(
    '/checkout/:sessionId',
    { schema: { hide: true, params: SessionParams }, config: { rateLimit: 'exempt' } },
    async (request, reply) => {
      const p = await findLocal(request.params.sessionId);
      if (!p) return html(reply, 404, notFoundPage('Checkout session'));
      if (!isOpen(p)) return html(reply, 200, closedCheckoutPage(p));
      return html(reply, 200, checkoutPage(p, toDate(p.expires_at)));
    },
  );

  app.post<{ Params: { sessionId: string } }>(
    '/checkout/:sessionId/pay',
    { schema: { hide: true, params: SessionParams }, config: { rateLimit: 'exempt' } },
    async (request, reply) => {
      const p = await findLocal(request.params.sessionId);
      if (!p) return html(reply, 404, notFoundPage('Checkout session'));
      if (p.status === 'pending' && !isOpen(p)) {
        await applyProcessorEvent(app.deps, {
          processor: 'local',
          eventId: `local:${p.session_id}:expired`,
          type: 'checkout.expired',
          sessionId: p.session_id,
          effect: { kind: 'expired' },
        });
      } else if (p.status === 'pending') {
        await applyProcessorEvent(app.deps, {
          processor: 'local',
          eventId: `local:${p.session_id}:paid`,
          type: 'checkout.paid',
          sessionId: p.session_id,
          effect: { kind: 'completed' },
        });
      }
      const after = (await findLocal(p.session_id)) ?? p;
      if (after.status === 'completed' || after.status === 'refunded') {
        return reply.redirect(redirectTarget(after.success_url, after.session_id), 303);
      }
      return html(reply, 409, closedCheckoutPage(after));
    },
  );

  app.post<{ Params: { sessionId: string } }>(
    '/checkout/:sessionId/cancel',
    { schema: { hide: true, params: SessionParams }, config: { rateLimit: 'exempt' } },
    async (request, reply) => {
      const p = await findLocal(request.params.sessionId);
      if (!p) return html(reply, 404, notFoundPage('Checkout session'));
      // Cancelling closes the session (like expiring a Stripe session); a paid one stays paid.
      await applyProcessorEvent(app.deps, {
        processor: 'local',
        eventId: `local:${p.session_id}:cancelled`,
        type: 'checkout.cancelled',
        sessionId: p.session_id,
        effect: { kind: 'expired' },
      });
      return reply.redirect(redirectTarget(p.cancel_url, p.session_id), 303);
    },
  );
}
