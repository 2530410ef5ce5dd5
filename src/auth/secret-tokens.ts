import { sha256 } from '@oslojs/crypto/sha2';
import { constantTimeEqual } from '@oslojs/crypto/subtle';
import { encodeBase32LowerCaseNoPadding, encodeHexLowerCase } from '@oslojs/encoding';

/**
 * 200 random bits in base32 after a prefix that says what the secret is (`sl_live_`, `sl_at_`, …):
 * API keys, app tokens, codes, sessions.
 */
export function randomToken(prefix: string): string {
  const bytes = new Uint8Array(25);
  crypto.getRandomValues(bytes);
  return `${prefix}${encodeBase32LowerCaseNoPadding(bytes)}`;
}

/**
 * Every such token carries 200 random bits, so a fast unsalted SHA-256 is enough to make the stored
 * value useless to an attacker while keeping lookup a single indexed equality.
 */
export function hashToken(token: string): string {
  return encodeHexLowerCase(sha256(new TextEncoder().encode(token)));
}

/** Constant-time comparison of two secrets; a missing one never matches. */
export function sameSecret(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined || a === '' || b === '') return false;
  const enc = new TextEncoder();
  return constantTimeEqual(enc.encode(a), enc.encode(b));
}
