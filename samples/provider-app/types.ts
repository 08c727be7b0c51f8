// What a bundled sample endpoint is: its catalogue definition (as the admin API takes it) and the
// function that answers it. Handlers are pure and offline.
import type { EndpointInput, ProviderInput } from '../../src/modules/catalog/schemas.js';

export type SampleInput = Record<string, unknown>;

export interface SampleEndpoint {
  definition: EndpointInput;
  handle(input: SampleInput): unknown;
}

export interface SampleProvider {
  definition: Omit<ProviderInput, 'base_url' | 'endpoints' | 'provider_id'> & { provider_id: string };
  endpoints: SampleEndpoint[];
}

/** A caller mistake: answered with 400 and this message. */
export class SampleInputError extends Error {}

export const price = (usdc: string) => ({ model: 'per_call' as const, price_per_call_usdc: usdc });
