// The one Idempotency-Key mechanism (docs/architecture.md) for every idempotent POST (execute, admin
// credits): the key is claimed by a unique index in the write itself; a repeat with the same request
// replays the first answer (`Idempotent-Replayed: true`), with another request it is 422 SVC-VAL-004, and
// while the first is still running 409 SVC-VAL-005. Routes share the header schema and these helpers.
import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { AppError } from '../errors/catalogue.js';

export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

export const IdempotencyKeyHeader = Type.Optional(
  Type.String({ minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY_LENGTH }),
);

/** JSON with sorted object keys, so the same body with its keys in another order hashes the same. */
export function canonicalJson(value: unknown): string {
  if (typeof value === 'bigint') return JSON.stringify(value.toString());
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const obj = value as Record<string, unknown>;
  return `{${Object.keys(obj)
    .sort()
    .filter((k) => obj[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`)
    .join(',')}}`;
}

/** What makes two requests "the same" for a key: the target (route + ids) and the canonical body. */
export function requestFingerprint(target: string[], body: unknown): string {
  return createHash('sha256')
    .update(`${target.join('\n')}\n${canonicalJson(body)}`)
    .digest('hex');
}

/** The same rules everywhere once a key turned out to be taken. */
export function assertReplayable(
  stored: { fingerprint: string | null; finished: boolean },
  fingerprint: string,
) {
  if (stored.fingerprint !== fingerprint) throw new AppError('SVC-VAL-004');
  if (!stored.finished) throw new AppError('SVC-VAL-005');
}
