import { sha256 } from '@oslojs/crypto/sha2';
import {
  encodeBase32LowerCaseNoPadding,
  encodeBase64urlNoPadding,
  encodeHexLowerCase,
} from '@oslojs/encoding';

/** 200 random bits in base32 after a prefix that says what the secret is (`sl_at_`, `sl_rt_`, …). */
export function randomToken(prefix: string): string {
  const bytes = new Uint8Array(25);
  crypto.getRandomValues(bytes);
  return `${prefix}${encodeBase32LowerCaseNoPadding(bytes)}`;
}

export function sha256Hex(value: string): string {
  return encodeHexLowerCase(sha256(new TextEncoder().encode(value)));
}

/** PKCE S256: base64url(SHA-256(verifier)) without padding (RFC 7636 §4.2). */
export function pkceChallenge(verifier: string): string {
  return encodeBase64urlNoPadding(sha256(new TextEncoder().encode(verifier)));
}
