import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';

// Routes of the billing module (to be filled in by its issue).
export const billingRoutes: FastifyPluginAsyncTypebox = async () => {};
