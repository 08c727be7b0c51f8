// POST /v1/billing/webhooks/stripe: verifies Stripe's signature over the raw body, then applies the event
// once. The raw-body parser is registered in this encapsulated plugin only; everywhere else bodies are JSON.
import type { FastifyPluginAsync } from 'fastify';
import type Stripe from 'stripe';
import { AppError } from '../../errors/catalogue.js';
import { applyProcessorEvent, type PaymentEffect, type ProcessorEvent } from './events.js';
import type { CardProcessor, StripeProcessor } from './processors.js';

/** Seconds a signature timestamp may be away from our clock (Stripe's default tolerance). */
export const WEBHOOK_TOLERANCE_S = 300;

function refuse(message: string): AppError {
  return new AppError('SVC-VAL-001', message, { errors: [{ path: 'stripe-signature', message }] });
}

export function stripeWebhookRoutes(processor: CardProcessor): FastifyPluginAsync {
  return async (app) => {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    app.post(
      '/v1/billing/webhooks/stripe',
      {
        schema: { tags: ['billing'], summary: 'Stripe webhook (signed)', hide: processor.kind !== 'stripe' },
        // Stripe's retries must never be refused; the signature guards the route.
        config: { rateLimit: 'exempt' },
      },
      async (request) => {
        if (processor.kind !== 'stripe') {
          throw new AppError('SVC-VAL-006', 'Stripe is not configured on this service');
        }
        const stripe = processor as StripeProcessor;
        const raw = request.body;
        const header = request.headers['stripe-signature'];
        if (!Buffer.isBuffer(raw) || raw.length === 0) throw refuse('Empty webhook body');
        if (typeof header !== 'string' || header === '') throw refuse('Missing Stripe-Signature header');
        const nowMs = app.deps.clock.now().getTime();
        let event: Stripe.Event;
        try {
          event = stripe.client.webhooks.constructEvent(
            raw,
            header,
            stripe.settings.webhookSecret,
            WEBHOOK_TOLERANCE_S,
            undefined,
            nowMs,
          );
        } catch (err) {
          request.log.warn({ err }, 'stripe webhook refused');
          throw refuse('Invalid or stale Stripe signature');
        }
        // The SDK only refuses old timestamps; one far in the future is as suspicious.
        const t = Number(/(?:^|,)t=(\d+)/.exec(header)?.[1]);
        if (!Number.isFinite(t) || t * 1000 - nowMs > WEBHOOK_TOLERANCE_S * 1000) {
          throw refuse('Invalid or stale Stripe signature');
        }
        const outcome = await applyProcessorEvent(app.deps, toProcessorEvent(event));
        request.log.info({ eventId: event.id, type: event.type, outcome }, 'stripe event');
        return { received: true, outcome };
      },
    );
  };
}

const idOf = (v: string | { id: string } | null | undefined) => (typeof v === 'string' ? v : v?.id);

/** The part of a Stripe event the state machine needs. */
export function toProcessorEvent(event: Stripe.Event): ProcessorEvent {
  const base = { processor: 'stripe' as const, eventId: event.id, type: event.type };
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      const s = event.data.object;
      // An async payment method completes the session unpaid; async_payment_succeeded follows.
      const paid = s.payment_status === 'paid' || s.payment_status === 'no_payment_required';
      const effect: PaymentEffect = paid
        ? { kind: 'completed', processorPaymentRef: idOf(s.payment_intent) }
        : { kind: 'none', reason: `payment_status ${s.payment_status}` };
      return { ...base, sessionId: s.id, paymentId: s.client_reference_id ?? undefined, effect };
    }
    case 'checkout.session.expired':
    case 'checkout.session.async_payment_failed': {
      const s = event.data.object;
      const kind = event.type === 'checkout.session.expired' ? 'expired' : 'failed';
      return { ...base, sessionId: s.id, paymentId: s.client_reference_id ?? undefined, effect: { kind } };
    }
    case 'charge.refunded': {
      const c = event.data.object;
      return {
        ...base,
        paymentId: c.metadata?.payment_id,
        effect: {
          kind: 'refunded',
          refundedUsdCents: c.amount_refunded,
          processorPaymentRef: idOf(c.payment_intent),
        },
      };
    }
    default:
      return { ...base, effect: { kind: 'none', reason: 'event type not used' } };
  }
}
