// The facilitator verifies a payment and settles it on-chain. Two implementations behind one interface
// (docs/x402.md): in-process (local-facilitator.ts, devnet default: the service settles with the
// platform key) and remote (any standard x402 facilitator's /verify /settle /supported over HTTP, with
// @x402/core's own HTTPFacilitatorClient).
import { HTTPFacilitatorClient } from '@x402/core/http';
import type { SupportedResponse, VerifyResponse } from '@x402/core/types';
import { AppError } from '../../errors/catalogue.js';
import type { PaymentPayload, PaymentRequirements, SettleResponse } from './protocol.js';

export type { SupportedResponse, VerifyResponse };

/** 503 SVC-SYS-002 with Retry-After: the outcome could not be learned, nothing was decided. */
export function dependencyUnavailable(message: string, details: Record<string, unknown> = {}): AppError {
  return new AppError('SVC-SYS-002', message, details, { 'Retry-After': '5' });
}

export interface Facilitator {
  readonly kind: 'local' | 'remote';
  verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse>;
  /**
   * Never throws for a payment the chain refused: that is `{success: false, errorReason}`. Throws
   * AppError('SVC-SYS-002') when the outcome could not be learned (facilitator or RPC unreachable).
   */
  settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse>;
  supported(): Promise<SupportedResponse>;
}

/** @x402/core's VerifyError / SettleError carry the facilitator's refusal (a non-2xx with a JSON answer). */
function verifyRefusal(err: unknown): VerifyResponse | undefined {
  if (err instanceof Error && err.name === 'VerifyError') {
    const e = err as Error & { invalidReason?: string; invalidMessage?: string; payer?: string };
    return {
      isValid: false,
      invalidReason: e.invalidReason ?? 'invalid_payment',
      ...(e.invalidMessage ? { invalidMessage: e.invalidMessage } : {}),
      ...(e.payer ? { payer: e.payer } : {}),
    };
  }
  return undefined;
}

function settleRefusal(err: unknown): SettleResponse | undefined {
  if (err instanceof Error && err.name === 'SettleError') {
    const e = err as Error & {
      errorReason?: string;
      errorMessage?: string;
      payer?: string;
      network?: string;
    };
    return {
      success: false,
      errorReason: e.errorReason ?? 'settlement_failed',
      ...(e.errorMessage ? { errorMessage: e.errorMessage } : {}),
      ...(e.payer ? { payer: e.payer } : {}),
      transaction: '',
      network: (e.network ?? '') as SettleResponse['network'],
    };
  }
  return undefined;
}

export function createRemoteFacilitator(url: string, timeoutMs = 30_000): Facilitator {
  const client = new HTTPFacilitatorClient({ url, timeoutMs });
  const unavailable = (err: unknown) =>
    dependencyUnavailable('The payment facilitator is unavailable; retry later', {
      reason: err instanceof Error ? err.message.slice(0, 200) : 'unreachable',
    });
  return {
    kind: 'remote',
    async verify(payload, requirements) {
      try {
        return await client.verify(payload, requirements);
      } catch (err) {
        const answer = verifyRefusal(err);
        if (answer) return answer;
        throw unavailable(err);
      }
    },
    async settle(payload, requirements) {
      try {
        return await client.settle(payload, requirements);
      } catch (err) {
        const answer = settleRefusal(err);
        if (answer) return answer;
        throw unavailable(err);
      }
    },
    async supported() {
      try {
        return await client.getSupported();
      } catch (err) {
        throw unavailable(err);
      }
    },
  };
}
