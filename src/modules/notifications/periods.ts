// UTC calendar periods for the digests: the day and the ISO week (Monday to Sunday) that last ended.
import { utcDay } from '../../lib/clock.js';

export interface Period {
  /** `YYYY-MM-DD` for a day, `YYYY-Www` for an ISO week. */
  key: string;
  /** Inclusive start and exclusive end instants. */
  start: Date;
  end: Date;
  /** First and last calendar day, YYYY-MM-DD. */
  firstDay: string;
  lastDay: string;
}

const DAY_MS = 24 * 60 * 60_000;
const startOfUtcDay = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));

export function previousUtcDay(now: Date): Period {
  const end = startOfUtcDay(now);
  const start = new Date(end.getTime() - DAY_MS);
  return { key: utcDay(start), start, end, firstDay: utcDay(start), lastDay: utcDay(start) };
}

/** ISO 8601 week label of the week containing `day`: the year and number of that week's Thursday. */
export function isoWeekKey(day: Date): string {
  const monday = startOfUtcDay(new Date(day.getTime() - ((day.getUTCDay() + 6) % 7) * DAY_MS));
  const thursday = new Date(monday.getTime() + 3 * DAY_MS);
  const year = thursday.getUTCFullYear();
  const week = Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / (7 * DAY_MS)) + 1;
  return `${year}-W${String(week).padStart(2, '0')}`;
}

export function previousIsoWeek(now: Date): Period {
  const today = startOfUtcDay(now);
  const end = new Date(today.getTime() - ((today.getUTCDay() + 6) % 7) * DAY_MS);
  const start = new Date(end.getTime() - 7 * DAY_MS);
  return {
    key: isoWeekKey(start),
    start,
    end,
    firstDay: utcDay(start),
    lastDay: utcDay(new Date(end.getTime() - DAY_MS)),
  };
}
