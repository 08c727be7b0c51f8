// Payment header decoding: every malformed or foreign header is a PaymentRejected with a clear reason.
import { encodePaymentSignatureHeader } from '@x402/core/http';
import { describe, expect, it } from 'vitest';
import {
  checkAccepted,
  decodePaymentHeader,
  PaymentRejected,
  type PaymentTerms,
  requirementsFor,
} from '../../src/modules/x402/protocol.js';

const terms: PaymentTerms = {
  chainId: 31337,
  network: 'eip155:31337',
  asset: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  payTo: '0x1111111111111111111111111111111111111111',
  tokenName: 'USD Coin',
  tokenVersion: '2',
};
const ours = requirementsFor(terms, 10_000n, 2_000);

function v2(overrides: Record<string, unknown> = {}, auth: Record<string, unknown> = {}) {
  return encodePaymentSignatureHeader({
    x402Version: 2,
    accepted: { ...ours, ...overrides },
    payload: {
      signature: `0x${'ab'.repeat(65)}`,
      authorization: {
        from: '0x2222222222222222222222222222222222222222',
        to: terms.payTo,
        value: '10000',
        validAfter: '0',
        validBefore: '9999999999',
        nonce: `0x${'01'.repeat(32)}`,
        ...auth,
      },
    },
  } as never);
}

function reasonOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof PaymentRejected) return err.reason;
    throw err;
  }
  return 'accepted';
}

describe('x402 payment header', () => {
  it('offers the price in atomic units, our asset and wallet, and time for the call plus settlement', () => {
    expect(ours).toMatchObject({ scheme: 'exact', amount: '10000', asset: terms.asset, payTo: terms.payTo });
    expect(ours.maxTimeoutSeconds).toBeGreaterThanOrEqual(2 + 30);
    expect(ours.extra).toEqual({ name: 'USD Coin', version: '2' });
  });

  it('accepts a well-formed v2 payment for our requirements', () => {
    const p = decodePaymentHeader(v2(), terms);
    expect(p.version).toBe(2);
    expect(reasonOf(() => checkAccepted(p, ours))).toBe('accepted');
  });

  it('refuses malformed base64 and JSON, and unknown versions, schemes and networks', () => {
    expect(reasonOf(() => decodePaymentHeader('%%%not base64%%%', terms))).toBe('invalid_payload');
    expect(reasonOf(() => decodePaymentHeader(Buffer.from('{not json').toString('base64'), terms))).toBe(
      'invalid_payload',
    );
    const v3 = Buffer.from(JSON.stringify({ x402Version: 3 })).toString('base64');
    expect(reasonOf(() => decodePaymentHeader(v3, terms))).toBe('invalid_x402_version');
    expect(reasonOf(() => decodePaymentHeader(v2({ scheme: 'upto' }), terms))).toBe('unsupported_scheme');
    expect(reasonOf(() => decodePaymentHeader(v2({ network: 'eip155:8453' }), terms))).toBe(
      'invalid_network',
    );
    expect(reasonOf(() => decodePaymentHeader(v2({}, { nonce: '0x12' }), terms))).toBe('invalid_payload');
  });

  it('refuses a payment for another asset, recipient or amount', () => {
    const wrongAsset = decodePaymentHeader(
      v2({ asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e' }),
      terms,
    );
    expect(reasonOf(() => checkAccepted(wrongAsset, ours))).toBe('invalid_exact_evm_asset_mismatch');
    const other = '0x4444444444444444444444444444444444444444';
    const wrongTo = decodePaymentHeader(v2({ payTo: other }, { to: other }), terms);
    expect(reasonOf(() => checkAccepted(wrongTo, ours))).toBe('invalid_exact_evm_recipient_mismatch');
    const cheaper = decodePaymentHeader(v2({ amount: '1' }, { value: '1' }), terms);
    expect(reasonOf(() => checkAccepted(cheaper, ours))).toBe(
      'invalid_exact_evm_payload_authorization_value_mismatch',
    );
  });

  it('reads a v1 X-PAYMENT header (network by name or CAIP-2)', () => {
    const header = Buffer.from(
      JSON.stringify({
        x402Version: 1,
        scheme: 'exact',
        network: 'eip155:31337',
        payload: {
          signature: `0x${'ab'.repeat(65)}`,
          authorization: {
            from: '0x2222222222222222222222222222222222222222',
            to: terms.payTo,
            value: '10000',
            validAfter: '0',
            validBefore: '9999999999',
            nonce: `0x${'02'.repeat(32)}`,
          },
        },
      }),
    ).toString('base64');
    const p = decodePaymentHeader(header, terms);
    expect(p.version).toBe(1);
    expect(reasonOf(() => checkAccepted(p, ours))).toBe('accepted');
    const onBase = Buffer.from(JSON.stringify({ x402Version: 1, scheme: 'exact', network: 'base' })).toString(
      'base64',
    );
    expect(reasonOf(() => decodePaymentHeader(onBase, terms))).toBe('invalid_network');
  });
});
