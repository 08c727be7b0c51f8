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

// Ids are made on every request (request, call, ledger entry): draw their random part from a pooled
// buffer, one call into the system CSPRNG per 4 KiB instead of one per id (the call costs far more than
// the bytes; it was ~8 % of the service's CPU under load). Same generator; ids are not secrets.
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

function encodeRandom(len: number): string {
  if (poolOffset + len > pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolOffset = 0;
  }
  let out = '';
  for (let i = poolOffset; i < poolOffset + len; i++) out += ALPHABET[(pool[i] as number) & 31];
  poolOffset += len;
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
  | 'ptx'
  | 'fct'
  | 'stl'
  | 'ses'
  | 'nonce';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${encodeTime(Date.now())}${encodeRandom(16)}`;
}
