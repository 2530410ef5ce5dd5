import { sha256 } from '@oslojs/crypto/sha2';
import { encodeBase32LowerCaseNoPadding, encodeHexLowerCase } from '@oslojs/encoding';

export const API_KEY_PATTERN = /^sl_(live|test)_[a-z2-7]{32,}$/;

/** 40 base32 characters = 200 bits of randomness after the `sl_live_` / `sl_test_` prefix. */
export function generateApiKey(mode: 'live' | 'test'): string {
  const bytes = new Uint8Array(25);
  crypto.getRandomValues(bytes);
  return `sl_${mode}_${encodeBase32LowerCaseNoPadding(bytes)}`;
}

/**
 * Keys carry 200 random bits, so a fast unsalted SHA-256 is enough to make the stored value useless
 * to an attacker while keeping lookup a single indexed equality.
 */
export function hashToken(token: string): string {
  return encodeHexLowerCase(sha256(new TextEncoder().encode(token)));
}

/** What dashboards show to tell keys apart: the prefix and the first four random characters. */
export function displayPrefix(token: string): string {
  return token.slice(0, token.indexOf('_', 3) + 5);
}
