// Card processors behind one interface, chosen once at start from config.stripe: Stripe Checkout when
// keys are configured, otherwise the built-in local checkout page (refused in production by config.ts).
import Stripe from 'stripe';
import type { Config } from '../../config.js';
import { randomBase62 } from '../../lib/secrets.js';

export interface CheckoutRequest {
  paymentId: string;
  accountId: string;
  amountUsdCents: number;
  credits: bigint;
  successUrl: string;
  cancelUrl: string;
  expiresAt: Date;
}

export interface CreatedCheckout {
  sessionId: string;
  checkoutUrl: string;
}

export interface CardProcessor {
  kind: 'local' | 'stripe';
  /** `referenceType` of the deposit ledger entry. */
  paymentType: 'local_checkout' | 'stripe_checkout';
  createCheckout(req: CheckoutRequest): Promise<CreatedCheckout>;
}

export class LocalProcessor implements CardProcessor {
  readonly kind = 'local';
  readonly paymentType = 'local_checkout';
  constructor(private readonly publicUrl: string) {}

  async createCheckout(): Promise<CreatedCheckout> {
    // Unguessable: knowing the id is what lets a browser pay or cancel this checkout.
    const sessionId = `cs_local_${randomBase62(32)}`;
    return { sessionId, checkoutUrl: `${this.publicUrl}/checkout/${sessionId}` };
  }
}

/** Stripe gives sessions a lifetime of at least 30 minutes; a minute more keeps the request valid. */
const STRIPE_EXPIRY_MARGIN_S = 60;

export class StripeProcessor implements CardProcessor {
  readonly kind = 'stripe';
  readonly paymentType = 'stripe_checkout';
  readonly client: Stripe;

  constructor(readonly settings: NonNullable<Config['stripe']>) {
    this.client = new Stripe(settings.secretKey, {
      maxNetworkRetries: 2,
      ...apiBaseOptions(settings.apiBase),
    });
  }

  async createCheckout(req: CheckoutRequest): Promise<CreatedCheckout> {
    const session = await this.client.checkout.sessions.create(
      {
        mode: 'payment',
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: 'usd',
              unit_amount: req.amountUsdCents,
              product_data: { name: `${req.credits} credits` },
            },
          },
        ],
        success_url: req.successUrl,
        cancel_url: req.cancelUrl,
        client_reference_id: req.paymentId,
        metadata: { payment_id: req.paymentId, account_id: req.accountId },
        payment_intent_data: { metadata: { payment_id: req.paymentId, account_id: req.accountId } },
        expires_at: Math.floor(req.expiresAt.getTime() / 1000) + STRIPE_EXPIRY_MARGIN_S,
      },
      // A retried create returns the same session instead of opening a second one.
      { idempotencyKey: req.paymentId },
    );
    if (!session.url) throw new Error(`Stripe returned checkout session ${session.id} without a url`);
    return { sessionId: session.id, checkoutUrl: session.url };
  }
}

/** STRIPE_API_BASE (e.g. a local fake in tests) as the SDK's host/port/protocol options. */
function apiBaseOptions(apiBase: string | undefined) {
  if (!apiBase) return {};
  const u = new URL(apiBase);
  const protocol = u.protocol === 'http:' ? ('http' as const) : ('https' as const);
  return { host: u.hostname, protocol, port: u.port || (protocol === 'http' ? 80 : 443) };
}

export function createProcessor(config: Config): CardProcessor {
  return config.stripe ? new StripeProcessor(config.stripe) : new LocalProcessor(config.publicUrl);
}
