// x402_payments (migration 0901): the reservation of an authorization's nonce, its settlement, and the call
// rows of x402 calls. The reservation is one INSERT against a unique key, so concurrent replays and other
// instances see exactly one winner.
import { sql } from 'drizzle-orm';
import { type Executor, one, rows } from '../../db/index.js';

export interface PaymentKey {
  chainId: number;
  /** lowercase */
  asset: string;
  /** lowercase */
  payer: string;
  /** lowercase 0x + 64 hex */
  nonce: string;
}

export interface Reservation extends PaymentKey {
  id: string;
  signature: string;
  payTo: string;
  amountCredits: bigint;
  providerId: string;
  endpointSlug: string;
  callId: string;
  deadlineAt: Date;
}

export interface PaymentRow {
  id: string;
  status: 'reserved' | 'settled';
  signature: string;
  response_status: number | null;
  response_body: string | null;
  payment_response: string | null;
  deadline_at: Date | string;
}

/** True when this request now holds the authorization; false when another request already does. */
export async function reservePayment(ex: Executor, r: Reservation): Promise<boolean> {
  const inserted = await rows<{ id: string }>(
    ex,
    sql`INSERT INTO x402_payments (id, chain_id, asset, payer, nonce, signature, pay_to, amount_credits, provider_id,
                                   endpoint_slug, call_id, deadline_at)
        VALUES (${r.id}, ${r.chainId}, ${r.asset}, ${r.payer}, ${r.nonce}, ${r.signature}, ${r.payTo},
                ${r.amountCredits.toString()}, ${r.providerId}, ${r.endpointSlug}, ${r.callId},
                ${r.deadlineAt.toISOString()})
        ON CONFLICT (chain_id, asset, payer, nonce) DO NOTHING
        RETURNING id`,
  );
  return inserted.length === 1;
}

export function findPayment(ex: Executor, k: PaymentKey): Promise<PaymentRow | undefined> {
  return one<PaymentRow>(
    ex,
    sql`SELECT id, status, signature, response_status, response_body, payment_response, deadline_at
        FROM x402_payments
        WHERE chain_id = ${k.chainId} AND asset = ${k.asset} AND payer = ${k.payer} AND nonce = ${k.nonce}`,
  );
}

/** The call was not charged, or its settlement failed: the unused authorization may be presented again. */
export async function releasePayment(ex: Executor, id: string): Promise<void> {
  await ex.execute(sql`DELETE FROM x402_payments WHERE id = ${id} AND status = 'reserved'`);
}

export interface Settlement {
  id: string;
  txHash: string;
  responseStatus: number;
  responseBody: string;
  paymentResponse: string;
  settledAt: Date;
}

export async function markSettled(ex: Executor, s: Settlement): Promise<void> {
  await ex.execute(
    sql`UPDATE x402_payments SET status = 'settled', tx_hash = ${s.txHash.toLowerCase()},
               response_status = ${s.responseStatus}, response_body = ${s.responseBody},
               payment_response = ${s.paymentResponse}, settled_at = ${s.settledAt.toISOString()}
        WHERE id = ${s.id}`,
  );
}
