import { sha256 } from '@oslojs/crypto/sha2';
import { encodeBase64urlNoPadding } from '@oslojs/encoding';

/** PKCE S256: base64url(SHA-256(verifier)) without padding (RFC 7636 §4.2). */
export function pkceChallenge(verifier: string): string {
  return encodeBase64urlNoPadding(sha256(new TextEncoder().encode(verifier)));
}
