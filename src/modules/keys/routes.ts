import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

// Routes of the keys module (to be filled in by its issue).
export const keysRoutes: FastifyPluginAsyncTypebox = async () => {};
