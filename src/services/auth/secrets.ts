import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Random credentials and their digests. Keys and tokens are 32 random bytes; only their SHA-256 is stored. */

const API_KEY_PREFIX = 'kgr_';
const REFRESH_PREFIX = 'kgrt_';

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function randomText(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** A new API key and the part of it that listings show. */
export function newApiKey(): { key: string; prefix: string } {
  const key = `${API_KEY_PREFIX}${randomText()}`;
  return { key, prefix: key.slice(0, API_KEY_PREFIX.length + 8) };
}

export function newRefreshToken(): string {
  return `${REFRESH_PREFIX}${randomText()}`;
}

/** A password for the first administrator, when nobody configured one. */
export function newPassword(): string {
  return randomText(18);
}

/** Constant-time comparison of two secrets (by digest, so lengths never leak). */
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(Buffer.from(sha256(a), 'hex'), Buffer.from(sha256(b), 'hex'));
}
