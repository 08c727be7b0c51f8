// Response envelope `{data, meta: {request_id, timestamp}}` (docs/architecture.md) and its schema.
import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';

export function envelope<T>(request: FastifyRequest, data: T) {
  return { data, meta: { request_id: request.id, timestamp: new Date().toISOString() } };
}

export function envelopeWithPagination<T>(
  request: FastifyRequest,
  data: T,
  pagination: { has_more: boolean; next_cursor: string | null },
) {
  return { data, pagination, meta: { request_id: request.id, timestamp: new Date().toISOString() } };
}

export const MetaSchema = Type.Object({ request_id: Type.String(), timestamp: Type.String() });

export const Envelope = <T extends TSchema>(data: T) => Type.Object({ data, meta: MetaSchema });

export const CursorPagination = Type.Object({
  has_more: Type.Boolean(),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});

export const ErrorShapeA = Type.Object({
  error: Type.Object({
    code: Type.String(),
    message: Type.String(),
    details: Type.Record(Type.String(), Type.Unknown()),
  }),
});

/** Shape B (SVC-CREDIT-*), docs/architecture.md. */
export const ErrorShapeB = Type.Object({
  statusCode: Type.Integer(),
  code: Type.String(),
  error: Type.String(),
  message: Type.String(),
  details: Type.Record(Type.String(), Type.Unknown()),
});
