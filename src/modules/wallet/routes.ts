import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

// Routes of the wallet module (to be filled in by its issue).
export const walletRoutes: FastifyPluginAsyncTypebox = async () => {};
