// Starts the sample provider app on loopback and registers (or re-registers) its providers through the
// catalogue service: the first start creates them, later starts update base_url (the port is ephemeral)
// and keep each provider's stored secret, which the app uses to verify signed calls.
import type { AppDeps } from '../src/deps.js';
import { registerProvider } from '../src/modules/catalog/service.js';
import { parseProviderInput } from '../src/modules/catalog/validate.js';
import { SAMPLE_PROVIDERS, sampleProviderInput } from './provider-app/providers.js';
import { type SampleApp, startSampleProviderApp } from './provider-app/server.js';

export interface RunningSamples {
  app: SampleApp;
  providers: { providerId: string; created: boolean; endpoints: number }[];
  stop(): Promise<void>;
}

export async function startSampleProviders(
  deps: Pick<AppDeps, 'db' | 'clock' | 'events' | 'secrets' | 'config'>,
  opts: { host?: string } = {},
): Promise<RunningSamples> {
  const secrets = new Map<string, string>();
  const app = await startSampleProviderApp({ host: opts.host, secretOf: (id) => secrets.get(id) });
  const registered: RunningSamples['providers'] = [];
  try {
    for (const sample of SAMPLE_PROVIDERS) {
      const providerId = sample.definition.provider_id;
      // Parsed like admin input, so a mistake in a sample definition fails loudly here.
      const input = parseProviderInput(sampleProviderInput(sample, app.baseUrlOf(providerId)));
      const { provider, secret, created } = await registerProvider(deps, {
        ...input,
        provider_id: providerId,
      });
      secrets.set(provider.id, secret);
      registered.push({ providerId: provider.id, created, endpoints: provider.endpoints.length });
    }
  } catch (err) {
    await app.close();
    throw err;
  }
  return { app, providers: registered, stop: () => app.close() };
}
