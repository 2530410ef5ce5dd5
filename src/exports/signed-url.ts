import type { EntityManager } from '@mikro-orm/postgresql';
import { constantTimeEqual } from '@oslojs/crypto/subtle';
import { decodeBase64urlIgnorePadding, encodeBase64urlNoPadding } from '@oslojs/encoding';
import { signText } from '../db/sealed-cursor.ts';
import { AppError } from '../errors.ts';

/** What the signature covers: the export and the url's end of life, never a store or a key. */
const signed = (rowId: string, expires: number) => `export-file:${rowId}:${expires}`;

/** The download url of an export, valid until `expires` (unix seconds), like an S3 presigned url. */
export async function signedUrl(
  em: EntityManager,
  publicUrl: string,
  rowId: string,
  expires: number,
): Promise<string> {
  const signature = encodeBase64urlNoPadding(await signText(em, signed(rowId, expires)));
  return `${publicUrl}/api/v1/exports/exp_${rowId}/file?expires=${expires}&signature=${signature}`;
}

/**
 * Checks a download url's parameters: 403 `EXPORT_URL_INVALID` for any edit (compared in constant
 * time), then 403 `EXPORT_URL_EXPIRED` once `expires` has passed. Expiry is judged after the
 * signature, so a forged far-future `expires` is invalid, not "expired".
 */
export async function checkSignature(
  em: EntityManager,
  rowId: string,
  params: { expires: string | null; signature: string | null },
  now = Date.now(),
): Promise<void> {
  const invalid = () =>
    new AppError(
      'forbidden',
      'EXPORT_URL_INVALID',
      'The download url is not one this API signed for this export',
    );
  if (!params.expires || !/^\d{1,12}$/.test(params.expires) || !params.signature) throw invalid();
  let given: Uint8Array;
  try {
    given = decodeBase64urlIgnorePadding(params.signature);
  } catch {
    throw invalid();
  }
  const expected = await signText(em, signed(rowId, Number(params.expires)));
  if (given.length !== expected.length || !constantTimeEqual(given, expected)) throw invalid();
  if (Number(params.expires) * 1000 <= now) {
    throw new AppError(
      'forbidden',
      'EXPORT_URL_EXPIRED',
      'The download url has expired: GET the export again for a fresh one',
    );
  }
}
