import { randomBytes } from 'node:crypto';
import { encodeBase64 } from '@oslojs/encoding';
import { atRestKey, seal, unseal } from '../../db/at-rest.ts';

const AAD = 'stockless:webhook-secret:v1';

/** `whsec_` + standard base64 of 32 random bytes (the form Standard Webhooks libraries accept). */
export function newSigningSecret(): string {
  return `whsec_${encodeBase64(randomBytes(32))}`;
}

/** The key that seals signing secrets, derived from the service's SECRET_KEY (hex). */
export function secretsKey(secretKeyHex: string): Buffer {
  return atRestKey(secretKeyHex, 'webhook-secrets');
}

export function encryptSecret(key: Buffer, plain: string): string {
  return seal(key, AAD, plain);
}

export function decryptSecret(key: Buffer, stored: string): string {
  return unseal(key, AAD, stored);
}
