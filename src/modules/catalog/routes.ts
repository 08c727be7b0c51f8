import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

// Routes of the catalog module (to be filled in by its issue).
export const catalogRoutes: FastifyPluginAsyncTypebox = async () => {};
