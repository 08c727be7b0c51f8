import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

// Routes of the discovery module (to be filled in by its issue).
export const discoveryRoutes: FastifyPluginAsyncTypebox = async () => {};
