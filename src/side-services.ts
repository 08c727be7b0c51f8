// Things that start beside the HTTP server once it listens (e.g. the bundled sample providers).
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from './deps.js';

export interface SideServices {
  stop(): Promise<void>;
}

export async function startSideServices(_deps: AppDeps, _app: FastifyInstance): Promise<SideServices> {
  return { async stop() {} };
}
