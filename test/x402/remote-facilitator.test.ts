// The remote facilitator speaks the standard /verify /settle /supported to a third party we cannot run
// here: a small fake facilitator HTTP server stands in for it at its network boundary.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors/catalogue.js';
import { createRemoteFacilitator } from '../../src/modules/x402/index.js';
import type { PaymentPayload, PaymentRequirements } from '../../src/modules/x402/protocol.js';

interface Seen {
  path: string;
  body: unknown;
}

const requirements: PaymentRequirements = {
  scheme: 'exact',
  network: 'eip155:84532',
  amount: '10000',
  asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  payTo: '0x1111111111111111111111111111111111111111',
  maxTimeoutSeconds: 70,
  extra: { name: 'USDC', version: '2' },
};

function payload(from: string): PaymentPayload {
  return {
    x402Version: 2,
    accepted: requirements,
    payload: {
      signature: `0x${'ab'.repeat(65)}`,
      authorization: {
        from,
        to: requirements.payTo,
        value: '10000',
        validAfter: '0',
        validBefore: '9999999999',
        nonce: `0x${'01'.repeat(32)}`,
      },
    },
  };
}

const GOOD = '0x2222222222222222222222222222222222222222';
const BROKE = '0x3333333333333333333333333333333333333333';

let server: http.Server;
let url: string;
const seen: Seen[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text ? JSON.parse(text) : null;
      seen.push({ path: req.url ?? '', body });
      const send = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      const from = body?.paymentPayload?.payload?.authorization?.from;
      if (req.url === '/supported') {
        return send(200, {
          kinds: [{ x402Version: 2, scheme: 'exact', network: 'eip155:84532' }],
          extensions: [],
          signers: {},
        });
      }
      if (req.url === '/verify') {
        if (from === BROKE) {
          return send(400, {
            isValid: false,
            invalidReason: 'invalid_exact_evm_insufficient_balance',
            payer: BROKE,
          });
        }
        return send(200, { isValid: true, payer: from });
      }
      if (req.url === '/settle') {
        if (from === BROKE) {
          return send(400, {
            success: false,
            errorReason: 'invalid_exact_evm_insufficient_balance',
            transaction: '',
            network: 'eip155:84532',
            payer: BROKE,
          });
        }
        return send(200, {
          success: true,
          transaction: `0x${'cd'.repeat(32)}`,
          network: 'eip155:84532',
          payer: from,
        });
      }
      send(404, { error: 'not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('remote facilitator (SVC_X402_FACILITATOR_URL)', () => {
  it('sends the standard verify and settle requests and reads their answers', async () => {
    const f = createRemoteFacilitator(url);
    expect(f.kind).toBe('remote');
    const verified = await f.verify(payload(GOOD), requirements);
    expect(verified).toMatchObject({ isValid: true, payer: GOOD });
    const settled = await f.settle(payload(GOOD), requirements);
    expect(settled).toMatchObject({ success: true, transaction: `0x${'cd'.repeat(32)}`, payer: GOOD });
    const verifyCall = seen.find((s) => s.path === '/verify');
    expect(verifyCall?.body).toMatchObject({
      x402Version: 2,
      paymentRequirements: requirements,
      paymentPayload: { payload: { authorization: { from: GOOD } } },
    });
    expect((await f.supported()).kinds[0]).toMatchObject({ scheme: 'exact', network: 'eip155:84532' });
  });

  it("passes the facilitator's refusal reasons through instead of failing", async () => {
    const f = createRemoteFacilitator(url);
    expect(await f.verify(payload(BROKE), requirements)).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_exact_evm_insufficient_balance',
    });
    expect(await f.settle(payload(BROKE), requirements)).toMatchObject({
      success: false,
      errorReason: 'invalid_exact_evm_insufficient_balance',
    });
  });

  it('answers 503 SVC-SYS-002 when the facilitator cannot be reached', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const f = createRemoteFacilitator(deadUrl, 2_000);
    const err = await f.verify(payload(GOOD), requirements).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('SVC-SYS-002');
    expect((err as AppError).headers['Retry-After']).toBeDefined();
  });
});
