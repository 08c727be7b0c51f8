// Things that start beside the HTTP server once it listens (e.g. the bundled sample providers).
import type { FastifyInstance } from 'fastify';
import { startSampleProviders } from '../samples/index.js';
import type { AppDeps } from './deps.js';

export interface SideServices {
  stop(): Promise<void>;
}

export async function startSideServices(deps: AppDeps, app: FastifyInstance): Promise<SideServices> {
  const stops: (() => Promise<void>)[] = [];
  if (deps.config.sampleProviders) {
    // The samples are a convenience: if they cannot start, the service still runs without them.
    try {
      const samples = await startSampleProviders(deps);
      stops.push(samples.stop);
      app.log.info(
        { url: samples.app.url, providers: samples.providers },
        'sample providers listening and registered',
      );
    } catch (err) {
      app.log.error({ err }, 'sample providers failed to start');
    }
  }
  return {
    async stop() {
      for (const stop of stops.reverse()) await stop();
    },
  };
}
