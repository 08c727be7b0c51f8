// Prefixed, time-sortable ids: `<prefix>_<10 chars time><16 chars random>` in Crockford base32.
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

function encodeTime(ms: number): string {
  let out = '';
  let t = ms;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[t % 32] + out;
    t = Math.floor(t / 32);
  }
  return out;
}

function encodeRandom(len: number): string {
  const bytes = randomBytes(len);
  let out = '';
  for (const b of bytes) out += ALPHABET[b & 31];
  return out;
}

export type IdPrefix =
  | 'acc'
  | 'key'
  | 'call'
  | 'txn'
  | 'pay'
  | 'req'
  | 'prv'
  | 'cpn'
  | 'dep'
  | 'mail'
  | 'job'
  | 'evt'
  | 'ses'
  | 'nonce';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${encodeTime(Date.now())}${encodeRandom(16)}`;
}
