import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

// Routes of the execution module (to be filled in by its issue).
export const executionRoutes: FastifyPluginAsyncTypebox = async () => {};
