// Request and response types picked from the generated OpenAPI types (src/generated/openapi.ts).
import type { paths } from './generated/openapi.js';

type Method = 'get' | 'post' | 'put' | 'delete';
type Operation<P extends keyof paths, M extends Method> = paths[P][M];

/** JSON body of the answer with status S. */
export type ResponseOf<P extends keyof paths, M extends Method, S extends number = 200> =
  Operation<P, M> extends { responses: infer R }
    ? S extends keyof R
      ? R[S] extends { content: { 'application/json': infer B } }
        ? B
        : never
      : never
    : never;

/** JSON request body. */
export type BodyOf<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

/** Query parameters; those with a server default are optional here. */
export type QueryOf<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { parameters: { query?: infer Q } } ? Partial<NonNullable<Q>> : never;

export type { paths };
