import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { encodeBase64 } from '@oslojs/encoding';

const AAD = Buffer.from('stockless:webhook-secret:v1');

/** `whsec_` + standard base64 of 32 random bytes (the form Standard Webhooks libraries accept). */
export function newSigningSecret(): string {
  return `whsec_${encodeBase64(randomBytes(32))}`;
}

/** A key for this purpose only, derived from the service's SECRET_KEY (hex). */
export function secretsKey(secretKeyHex: string): Buffer {
  return createHmac('sha256', Buffer.from(secretKeyHex, 'hex')).update('webhook-secrets').digest();
}

/** AES-256-GCM; stored as base64 of nonce (12) || ciphertext || tag (16). */
export function encryptSecret(key: Buffer, plain: string): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(AAD);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64');
}

export function decryptSecret(key: Buffer, stored: string): string {
  const raw = Buffer.from(stored, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAAD(AAD);
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString(
    'utf8',
  );
}
