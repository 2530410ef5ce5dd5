import type { EntityManager } from '@mikro-orm/postgresql';
import { hmac } from '@oslojs/crypto/hmac';
import { SHA256 } from '@oslojs/crypto/sha2';
import { constantTimeEqual } from '@oslojs/crypto/subtle';
import { decodeBase64urlIgnorePadding, encodeBase64urlNoPadding } from '@oslojs/encoding';
import { db } from './kysely.ts';
import { first, sql } from './sql.ts';

let key: Uint8Array | undefined;
/**
 * The installation's cursor secret, shared by every feed: each feed's payload starts with its own
 * tag, so none reads another's cursor.
 */
async function secret(em: EntityManager): Promise<Uint8Array> {
  if (!key) {
    const row = await first(
      db(em).selectFrom('platform_secrets').select('value').where('name', '=', sql.lit('cursor_hmac')),
    );
    if (!row) throw new Error('platform secret cursor_hmac is missing');
    key = new Uint8Array(row.value);
  }
  return key;
}

const enc = new TextEncoder();
const sign = (k: Uint8Array, payload: string) => hmac(SHA256, k, enc.encode(payload)).slice(0, 16);

/** An opaque cursor for a feed's position text: `<base64url payload>.<base64url MAC>`. */
export async function sealCursor(em: EntityManager, payload: string): Promise<string> {
  const encoded = encodeBase64urlNoPadding(enc.encode(payload));
  return `${encoded}.${encodeBase64urlNoPadding(sign(await secret(em), encoded))}`;
}

/** The position text a cursor sealed here carries; undefined for an edited one or garbage. */
export async function openCursor(em: EntityManager, cursor: string): Promise<string | undefined> {
  const [payload, mac, extra] = cursor.split('.');
  if (!payload || !mac || extra !== undefined) return undefined;
  try {
    const given = decodeBase64urlIgnorePadding(mac);
    const text = new TextDecoder('utf-8', { fatal: true }).decode(decodeBase64urlIgnorePadding(payload));
    return constantTimeEqual(given, sign(await secret(em), payload)) ? text : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The full HMAC-SHA256 of `text` under the same installation secret, for signatures that are not
 * cursors (an export's download url). Its texts contain `:`, which no cursor's base64url payload can,
 * so no signature made here is ever a cursor's MAC, nor the other way round.
 */
export async function signText(em: EntityManager, text: string): Promise<Uint8Array> {
  return hmac(SHA256, await secret(em), enc.encode(text));
}
