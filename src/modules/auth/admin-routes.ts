// Admin account calls (DESIGN.md section 8). Behind the admin token.

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { Envelope, ErrorShapeA, envelope } from '../../http/envelope.js';
import { PathId } from '../../http/path-ids.js';
import { changeAccountStatus, createAccountWithKey } from './accounts.js';

const CreateAccountBody = Type.Object(
  {
    email: Type.String({ format: 'email', maxLength: 254 }),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);

const StatusBody = Type.Object(
  { reason: Type.Optional(Type.String({ minLength: 1, maxLength: 1000 })) },
  { additionalProperties: false },
);
const AccountParams = Type.Object({ accountId: PathId(100) });
const StatusChange = Type.Object({ account_id: Type.String(), status: Type.String() });

export const authAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/v1/admin/accounts',
    { schema: { tags: ['admin'], body: CreateAccountBody }, preHandler: app.requireAdmin },
    async (request, reply) => {
      const created = await createAccountWithKey(app.deps.db, request.body.email, request.body.name);
      return reply.status(201).send(envelope(request, created));
    },
  );

  for (const [action, target] of [
    ['suspend', 'suspended'],
    ['reinstate', 'active'],
  ] as const) {
    app.post(
      `/v1/admin/accounts/:accountId/${action}`,
      {
        schema: {
          tags: ['admin'],
          summary:
            action === 'suspend'
              ? 'Suspend an account: 403 SVC-AUTH-004 on its every call, at once; e-mails the owner'
              : 'Reinstate a suspended account',
          params: AccountParams,
          body: StatusBody,
          response: { 200: Envelope(StatusChange), 404: ErrorShapeA, 409: ErrorShapeA },
        },
        // Admin check before validation: without the token, nothing about the request is answered.
        // The body is optional: no body at all counts as `{}`.
        preValidation: [
          app.requireAdmin,
          async (request) => {
            if (request.body === undefined) request.body = {};
          },
        ],
      },
      async (request) =>
        envelope(
          request,
          await changeAccountStatus(app.deps, request.params.accountId, target, request.body.reason),
        ),
    );
  }
};
