// Sample Toolbox (utility): hashing, UUIDs, unit conversion, time-zone conversion.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { price, type SampleEndpoint, SampleInputError, type SampleProvider } from '../types.js';
import { convertUnits, UNIT_NAMES } from './units.js';

const hash: SampleEndpoint = {
  definition: {
    slug: 'hash',
    method: 'POST',
    description:
      'Compute a cryptographic hash (checksum / message digest) of a text: SHA-256, SHA-512, SHA-1 or MD5, as hex or base64. Useful for fingerprints, integrity checks and deduplication keys.',
    tags: ['hash', 'sha256', 'sha512', 'md5', 'checksum', 'digest', 'crypto'],
    parameters: {
      text: { type: 'string', required: true, description: 'Text to hash (UTF-8)', maxLength: 100000 },
      algorithm: {
        type: 'string',
        required: false,
        description: 'Hash algorithm',
        enum: ['sha256', 'sha512', 'sha1', 'md5'],
        default: 'sha256',
      },
      encoding: {
        type: 'string',
        required: false,
        description: 'Digest encoding',
        enum: ['hex', 'base64'],
        default: 'hex',
      },
    },
    response_schema: {
      algorithm: { type: 'string' },
      encoding: { type: 'string' },
      digest: { type: 'string', description: 'The hash of the text' },
    },
    pricing: price('0.001'),
  },
  handle: ({ text, algorithm, encoding }) => ({
    algorithm,
    encoding,
    digest: createHash(String(algorithm))
      .update(String(text), 'utf8')
      .digest(encoding as 'hex' | 'base64'),
  }),
};

/** RFC 9562 UUID version 7: 48-bit Unix milliseconds, then random bits; sorts by creation time. */
export function uuidV7(nowMs = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(nowMs, 0, 6);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const uuid: SampleEndpoint = {
  definition: {
    slug: 'uuid',
    method: 'GET',
    description:
      'Generate random unique identifiers: UUID version 4 (fully random) or version 7 (time-ordered, sortable, good database keys). Up to 100 per call.',
    tags: ['uuid', 'guid', 'identifier', 'random', 'id-generator'],
    parameters: {
      version: {
        type: 'integer',
        required: false,
        description: 'UUID version: 4 or 7',
        enum: [4, 7],
        default: 4,
      },
      count: {
        type: 'integer',
        required: false,
        description: 'How many to generate',
        minimum: 1,
        maximum: 100,
        default: 1,
      },
    },
    response_schema: { version: { type: 'integer' }, uuids: { type: 'array', items: { type: 'string' } } },
    pricing: price('0.001'),
  },
  handle: ({ version, count }) => ({
    version,
    uuids: Array.from({ length: Number(count) }, () => (version === 7 ? uuidV7() : randomUUID())),
  }),
};

const units: SampleEndpoint = {
  definition: {
    slug: 'convert-units',
    method: 'POST',
    description:
      'Convert a measurement between units of length, mass/weight, temperature, volume, area, speed, time and digital storage (metric and imperial), e.g. miles to kilometres, pounds to kilograms, Fahrenheit to Celsius.',
    tags: ['units', 'conversion', 'measurement', 'metric', 'imperial', 'temperature'],
    parameters: {
      value: { type: 'number', required: true, description: 'The quantity to convert' },
      from: { type: 'string', required: true, description: `Source unit, one of: ${UNIT_NAMES.join(', ')}` },
      to: { type: 'string', required: true, description: 'Target unit, e.g. "km", "kg", "c"' },
    },
    response_schema: {
      value: { type: 'number' },
      from: { type: 'string' },
      to: { type: 'string' },
      result: { type: 'number' },
      dimension: { type: 'string' },
    },
    pricing: price('0.002'),
  },
  handle: ({ value, from, to }) => convertUnits(Number(value), String(from), String(to)),
};

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Wall-clock fields of `date` in `zone`. */
function wallClock(date: Date, zone: string) {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZoneName: 'short',
  }).formatToParts(date);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  const local = `${get('year')}-${get('month')}-${get('day')}T${get('hour')}:${get('minute')}:${get('second')}`;
  const offsetMinutes = Math.round(
    (Date.parse(`${local}Z`) - Math.floor(date.getTime() / 1000) * 1000) / 60000,
  );
  return { local, offsetMinutes, abbreviation: get('timeZoneName') };
}

function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

const LOCAL_DATETIME = /^(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d)(?:\.\d+)?)?)?$/;

/** Parses an ISO 8601 date-time; one without an offset is a wall-clock time in `zone`. */
function parseInZone(text: string, zone: string): Date {
  const m = LOCAL_DATETIME.exec(text.trim());
  if (!m) {
    const d = new Date(text);
    if (Number.isNaN(d.getTime())) throw new SampleInputError('datetime must be an ISO 8601 date-time');
    return d;
  }
  const [, y, mo, d, h = '00', mi = '00', s = '00'] = m;
  const asUtc = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (Number.isNaN(asUtc)) throw new SampleInputError('datetime must be an ISO 8601 date-time');
  // Two passes settle the offset, also next to a daylight-saving change.
  let guess = asUtc - wallClock(new Date(asUtc), zone).offsetMinutes * 60000;
  guess = asUtc - wallClock(new Date(guess), zone).offsetMinutes * 60000;
  return new Date(guess);
}

const timezone: SampleEndpoint = {
  definition: {
    slug: 'convert-timezone',
    method: 'POST',
    description:
      'Convert a date and time from one time zone to another (IANA zones such as Europe/Paris, America/New_York, Asia/Tokyo), with the UTC offset and abbreviation, daylight saving time included.',
    tags: ['time', 'timezone', 'datetime', 'utc', 'clock', 'conversion'],
    parameters: {
      datetime: {
        type: 'string',
        required: true,
        description: 'ISO 8601 date-time; without an offset it is read in from_timezone',
        maxLength: 64,
      },
      from_timezone: {
        type: 'string',
        required: false,
        description: 'IANA time zone of a datetime without offset',
        default: 'UTC',
      },
      to_timezone: { type: 'string', required: true, description: 'IANA time zone to convert to' },
    },
    response_schema: {
      utc: { type: 'string' },
      to_timezone: { type: 'string' },
      local: { type: 'string', description: 'Wall-clock time in to_timezone' },
      offset: { type: 'string' },
      abbreviation: { type: 'string' },
    },
    pricing: price('0.002'),
  },
  handle: ({ datetime, from_timezone, to_timezone }) => {
    for (const [name, zone] of [
      ['from_timezone', from_timezone],
      ['to_timezone', to_timezone],
    ] as const) {
      if (!isTimeZone(String(zone))) throw new SampleInputError(`${name} is not a known IANA time zone`);
    }
    const instant = parseInZone(String(datetime), String(from_timezone));
    const target = wallClock(instant, String(to_timezone));
    return {
      utc: instant.toISOString(),
      to_timezone,
      local: target.local,
      offset: formatOffset(target.offsetMinutes),
      abbreviation: target.abbreviation,
    };
  },
};

export const toolbox: SampleProvider = {
  definition: {
    provider_id: 'sample-toolbox',
    name: 'Sample Toolbox',
    description:
      'Everyday developer utilities that run offline: hashing, UUID generation, unit and time-zone conversion.',
    category: 'utility',
    tags: ['utility', 'developer-tools', 'offline'],
  },
  endpoints: [hash, uuid, units, timezone],
};
