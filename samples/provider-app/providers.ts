// The bundled sample providers, one per category, and their admin-API definitions.
import type { ProviderInput } from '../../src/modules/catalog/schemas.js';
import { chainkit } from './endpoints/chainkit.js';
import { dataworks } from './endpoints/dataworks.js';
import { messaging } from './endpoints/messaging.js';
import { textlab } from './endpoints/textlab.js';
import { toolbox } from './endpoints/toolbox.js';
import type { SampleProvider } from './types.js';

export const SAMPLE_PROVIDERS: SampleProvider[] = [toolbox, textlab, dataworks, chainkit, messaging];

/** The provider definition to register, pointing at where the sample app listens. */
export function sampleProviderInput(
  p: SampleProvider,
  baseUrl: string,
): ProviderInput & { provider_id: string } {
  return { ...p.definition, base_url: baseUrl, endpoints: p.endpoints.map((e) => e.definition) };
}
