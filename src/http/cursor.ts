// Opaque cursors for cursor pagination: base64url of a JSON tuple. Invalid cursors are a 400, not a 500.
import { AppError } from '../errors/catalogue.js';

export function encodeCursor(values: (string | number)[]): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

export function decodeCursor(cursor: string, arity: number): (string | number)[] {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(parsed) &&
      parsed.length === arity &&
      parsed.every((v) => typeof v === 'string' || typeof v === 'number')
    ) {
      return parsed;
    }
  } catch {
    // fall through
  }
  throw new AppError('SVC-VAL-001', 'Invalid cursor', {
    errors: [{ path: 'cursor', message: 'is not a valid cursor' }],
  });
}
