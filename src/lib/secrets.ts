// Secrets kept in the data dir (generated once), hashing, encryption at rest, constant-time comparison.
import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Reads `<dataDir>/secrets/<name>` or creates it (mode 0600). Returns the value and whether it is new. */
export function loadOrCreateSecret(dataDir: string, name: string, generate: () => string) {
  const dir = path.join(dataDir, 'secrets');
  const file = path.join(dir, name);
  if (existsSync(file)) return { value: readFileSync(file, 'utf8').trim(), created: false };
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const value = generate();
  writeFileSync(file, `${value}\n`, { mode: 0o600, flag: 'wx' });
  return { value, created: true };
}

export const randomHex = (bytes: number) => randomBytes(bytes).toString('hex');

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Unbiased random base62 string (rejection sampling). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < 248 && out.length < length) out += BASE62[b % 62];
    }
  }
  return out;
}

export const sha256Hex = (value: string) => createHash('sha256').update(value).digest('hex');

/** Constant-time string equality (hashes first so lengths never leak). */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

/** AES-256-GCM; output `v1.<iv>.<tag>.<ciphertext>` in base64url. */
export function encryptSecret(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [
    'v1',
    iv.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
    ct.toString('base64url'),
  ].join('.');
}

export function decryptSecret(key: Buffer, payload: string): string {
  const [version, iv, tag, ct] = payload.split('.');
  if (version !== 'v1' || !iv || !tag || ct === undefined) throw new Error('unrecognised secret format');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
}
