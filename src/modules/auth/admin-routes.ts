// Admin account calls (docs/auth.md). Behind the admin token.

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
    {
      schema: {
        tags: ['admin'],
        summary: 'Create an account with a first API key (the key is returned only here)',
        security: [{ bearer: [] }],
        body: CreateAccountBody,
        response: {
          201: Envelope(
            Type.Object({
              account_id: Type.String(),
              email: Type.String(),
              api_key: Type.Object({
                id: Type.String(),
                name: Type.String(),
                key: Type.String({ description: 'The full key: shown only in this response' }),
                prefix: Type.String(),
                created_at: Type.String(),
              }),
            }),
          ),
          400: ErrorShapeA,
          401: ErrorShapeA,
          409: ErrorShapeA,
        },
      },
      config: { auth: 'admin' },
    },
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
          security: [{ bearer: [] }],
          response: {
            200: Envelope(StatusChange),
            400: ErrorShapeA,
            401: ErrorShapeA,
            404: ErrorShapeA,
            409: ErrorShapeA,
          },
        },
        config: { auth: 'admin' },
        // The body is optional: no body at all counts as `{}`.
        preValidation: async (request) => {
          if (request.body === undefined) request.body = {};
        },
      },
      async (request) =>
        envelope(
          request,
          await changeAccountStatus(app.deps, request.params.accountId, target, request.body.reason),
        ),
    );
  }
};
