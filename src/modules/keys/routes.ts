// API key management (docs/keys.md): any authenticated caller (API key, session or wallet signature)
// manages its own account's keys. Envelope responses (docs/architecture.md).

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { accountOf } from '../../http/caller.js';
import { decodeCursor, encodeCursor } from '../../http/cursor.js';
import {
  CursorPagination,
  Envelope,
  ErrorShapeA,
  envelope,
  envelopeWithPagination,
  MetaSchema,
} from '../../http/envelope.js';
import { PathId } from '../../http/path-ids.js';
import { KeyUsage, PolicyInput, PolicyView } from './policy.js';
import { createApiKey, listApiKeys, revokeApiKey, setApiKeyPolicy } from './service.js';

const security: { [scheme: string]: string[] }[] = [{ apiKey: [] }, { bearer: [] }];

const KeyView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String(),
  created_at: Type.String(),
  last_used_at: Type.Union([Type.String(), Type.Null()]),
  status: Type.Union([Type.Literal('active'), Type.Literal('revoked')]),
  revoked_at: Type.Union([Type.String(), Type.Null()]),
  policy: Type.Union([PolicyView, Type.Null()]),
  usage: KeyUsage,
});
const CreatedKey = Type.Object({
  id: Type.String(),
  name: Type.String(),
  key: Type.String({ description: 'The full key: shown only in this response' }),
  prefix: Type.String(),
  created_at: Type.String(),
  policy: Type.Union([PolicyView, Type.Null()]),
});
const RevokedKey = Type.Object({
  id: Type.String(),
  status: Type.Literal('revoked'),
  revoked_at: Type.String(),
});

const ListQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 100 }),
    cursor: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { additionalProperties: false },
);
const CreateBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 100 }), policy: Type.Optional(PolicyInput) },
  { additionalProperties: false },
);
const PolicyBody = Type.Object(
  { policy: Type.Union([PolicyInput, Type.Null()], { description: 'null removes the policy' }) },
  { additionalProperties: false },
);
const KeyParams = Type.Object({ keyId: PathId(100) });

export const keysRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { deps } = app;
  // Checked in onRequest (src/http/route-policy.ts): an unauthenticated request learns 401 before
  // anything about its body, and a key with a spending policy learns 403 SVC-AUTH-005 (an agent's key
  // cannot manage keys, so it cannot lift its own leash).
  const guard = { config: { auth: 'account' as const, keyPolicy: 'refuse' as const } };
  const errors = { 401: ErrorShapeA, 403: ErrorShapeA };

  app.get(
    '/v1/keys',
    {
      schema: {
        tags: ['keys'],
        security,
        summary: "The account's API keys, newest first (never the secret)",
        querystring: ListQuery,
        response: {
          200: Type.Object({ data: Type.Array(KeyView), pagination: CursorPagination, meta: MetaSchema }),
          400: ErrorShapeA,
          ...errors,
        },
      },
      ...guard,
    },
    async (request) => {
      const { accountId } = accountOf(request);
      const after = request.query.cursor ? String(decodeCursor(request.query.cursor, 1)[0]) : undefined;
      const page = await listApiKeys(deps.db.orm, accountId, {
        limit: request.query.limit,
        after,
        now: deps.clock.now(),
      });
      const last = page.keys[page.keys.length - 1];
      return envelopeWithPagination(request, page.keys, {
        has_more: page.hasMore,
        next_cursor: page.hasMore && last ? encodeCursor([last.id]) : null,
      });
    },
  );

  app.post(
    '/v1/keys',
    {
      schema: {
        tags: ['keys'],
        security,
        summary: 'Create an API key (the full key is returned only here)',
        body: CreateBody,
        response: { 201: Envelope(CreatedKey), 400: ErrorShapeA, ...errors },
      },
      ...guard,
    },
    async (request, reply) => {
      const { accountId } = accountOf(request);
      const { name, policy } = request.body;
      const now = deps.clock.now();
      const created = await deps.db.orm.transaction((tx) =>
        createApiKey(tx, accountId, name, { policy, now }),
      );
      return reply.status(201).send(envelope(request, created));
    },
  );

  app.put(
    '/v1/keys/:keyId/policy',
    {
      schema: {
        tags: ['keys'],
        security,
        summary: "Put or remove (null) a key's spending policy (docs/keys.md)",
        params: KeyParams,
        body: PolicyBody,
        response: { 200: Envelope(KeyView), 400: ErrorShapeA, 404: ErrorShapeA, ...errors },
      },
      ...guard,
    },
    async (request) => {
      const { accountId } = accountOf(request);
      const key = await setApiKeyPolicy(
        deps.db.orm,
        accountId,
        request.params.keyId,
        request.body.policy,
        deps.clock.now(),
      );
      return envelope(request, key);
    },
  );

  app.delete(
    '/v1/keys/:keyId',
    {
      schema: {
        tags: ['keys'],
        security,
        summary: 'Revoke an API key: immediate and permanent',
        params: KeyParams,
        response: { 200: Envelope(RevokedKey), 400: ErrorShapeA, 404: ErrorShapeA, ...errors },
      },
      ...guard,
    },
    async (request) => {
      const caller = accountOf(request);
      const revoked = await revokeApiKey(deps.db.orm, caller.accountId, request.params.keyId, {
        keyInUse: caller.keyId,
        now: deps.clock.now(),
      });
      return envelope(request, revoked);
    },
  );
};
