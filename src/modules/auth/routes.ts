import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

// Routes of the auth module (to be filled in by its issue).
export const authRoutes: FastifyPluginAsyncTypebox = async () => {};
