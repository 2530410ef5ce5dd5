import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

/**
 * Values the database keeps sealed, so a copy of the database alone (a backup, a replica, a dump
 * handed to support) reveals none of them: AES-256-GCM under a key derived per purpose from the
 * service's SECRET_KEY, which lives outside the database.
 */

/** A key for one purpose only (`label`), derived from SECRET_KEY (hex). */
export function atRestKey(secretKeyHex: string, label: string): Buffer {
  return createHmac('sha256', Buffer.from(secretKeyHex, 'hex')).update(label).digest();
}

/**
 * Seals `plain`; stored as base64 of nonce (12) || ciphertext || tag (16). `aad` binds the sealed
 * value to where it belongs, so a value copied into another row or column does not open there.
 */
export function seal(key: Buffer, aad: string, plain: string): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(aad));
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64');
}

/** Opens what `seal` made with the same key and `aad`; throws when either differs or it was altered. */
export function unseal(key: Buffer, aad: string, stored: string): string {
  const raw = Buffer.from(stored, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString(
    'utf8',
  );
}
