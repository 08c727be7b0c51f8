// Input refused at the edge, before any route or database sees it. PostgreSQL cannot store U+0000 in text
// (it answers 22021/22P05, which used to surface as a 500), and no field of ours has a use for it: a NUL
// byte anywhere in the URL (path ids, query), in a header value (an Idempotency-Key is stored) or in a
// string or key of the body is 400 SVC-VAL-001.
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors/catalogue.js';

function nulError(where: string) {
  return new AppError('SVC-VAL-001', `${where || 'body'} must not contain NUL bytes`, {
    errors: [{ path: where, message: 'must not contain NUL bytes' }],
  });
}

/** The dotted path of the first string (or object key) holding a NUL byte, or undefined. */
export function findNul(value: unknown, at = '', depth = 0): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? at : undefined;
  // Deeper than any schema of ours: the body validator refuses it anyway; stop walking.
  if (value === null || typeof value !== 'object' || depth > 64 || Buffer.isBuffer(value)) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findNul(value[i], at ? `${at}.${i}` : String(i), depth + 1);
      if (hit !== undefined) return hit;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    const here = at ? `${at}.${key}` : key;
    if (key.includes('\u0000')) return here;
    const hit = findNul(item, here, depth + 1);
    if (hit !== undefined) return hit;
  }
  return undefined;
}

export function registerInputGuards(app: FastifyInstance) {
  // onRequest runs for unknown routes too, and before authentication touches the database.
  app.addHook('onRequest', async (request) => {
    const url = request.url;
    if (url.includes('\u0000') || url.includes('%00')) throw nulError('url');
    for (const [name, value] of Object.entries(request.headers)) {
      const values = Array.isArray(value) ? value : [value];
      if (values.some((v) => v?.includes('\u0000'))) throw nulError(`header ${name}`);
    }
  });
  app.addHook('preValidation', async (request) => {
    const where = findNul(request.body);
    if (where !== undefined) throw nulError(where);
  });
}
