// Query-string dates of the billing API, validated into SVC-VAL-001 with a field path.
import { AppError } from '../../errors/catalogue.js';

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
export const DAY_MS = 86_400_000;

export function invalid(path: string, message: string): AppError {
  return new AppError('SVC-VAL-001', `${path} ${message}`, { errors: [{ path, message }] });
}

/** A calendar day "YYYY-MM-DD" (UTC) as the Date of its midnight; refuses 2026-02-30 and friends. */
export function parseDay(value: string, path: string): Date {
  const d = new Date(`${value}T00:00:00.000Z`);
  if (!DAY.test(value) || Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== value) {
    throw invalid(path, 'must be a date YYYY-MM-DD');
  }
  return d;
}

/**
 * An ISO date or date-time. A bare day used as an upper bound means "through the end of that day", so
 * `to=2026-11-22` includes the 22nd.
 */
export function parseInstant(value: string, path: string, bound: 'lower' | 'upper'): Date {
  if (DAY.test(value)) {
    const day = parseDay(value, path);
    return bound === 'upper' ? new Date(day.getTime() + DAY_MS) : day;
  }
  const d = new Date(value);
  if (!DATE_TIME.test(value) || Number.isNaN(d.getTime())) {
    throw invalid(path, 'must be an ISO 8601 date or date-time');
  }
  return d;
}
