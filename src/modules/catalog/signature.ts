// Provider request signing (docs/catalog.md). The service signs every forwarded call; providers
// (including the bundled samples) verify it.
//   X-Svc-Timestamp: unix seconds
//   X-Svc-Provider-Signature: v1=<hex HMAC-SHA256(provider_secret, `${timestamp}.${payload}`)>
// payload = the raw request body for methods with a body; for GET (and other body-less calls) the raw
// query string without the leading '?', so GET parameters are covered by the signature too.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-svc-provider-signature';
export const TIMESTAMP_HEADER = 'x-svc-timestamp';
export const CALL_ID_HEADER = 'x-svc-call-id';
/** Providers should refuse signatures older (or further in the future) than this. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export function signProviderRequest(secret: string, timestamp: number, payload: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${payload}`).digest('hex')}`;
}

export function verifyProviderSignature(
  secret: string,
  header: string | undefined,
  timestampHeader: string | undefined,
  payload: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  if (!header || !timestampHeader || !/^\d{1,12}$/.test(timestampHeader)) return false;
  const timestamp = Number(timestampHeader);
  if (Math.abs(nowSeconds - timestamp) > SIGNATURE_TOLERANCE_SECONDS) return false;
  const expected = Buffer.from(signProviderRequest(secret, timestamp, payload));
  const given = Buffer.from(header);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
