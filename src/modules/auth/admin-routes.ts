// Admin account calls (DESIGN.md section 8). Behind the admin token.

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { envelope } from '../../http/envelope.js';
import { createAccountWithKey } from './accounts.js';

const CreateAccountBody = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 254 }),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);

export const authAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/v1/admin/accounts',
    { schema: { tags: ['admin'], body: CreateAccountBody }, preHandler: app.requireAdmin },
    async (request, reply) => {
      const created = await createAccountWithKey(app.deps.db, request.body.email, request.body.name);
      return reply.status(201).send(envelope(request, created));
    },
  );
};
