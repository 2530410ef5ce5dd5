import type { EntityManager } from '@mikro-orm/postgresql';
import { hmac } from '@oslojs/crypto/hmac';
import { SHA256 } from '@oslojs/crypto/sha2';
import { constantTimeEqual } from '@oslojs/crypto/subtle';
import { decodeBase64urlIgnorePadding, encodeBase64urlNoPadding } from '@oslojs/encoding';
import { db } from '../db/kysely.ts';
import { first, sql } from '../db/sql.ts';
import { AppError } from '../errors.ts';

/**
 * A position in the event log: the writing transaction's id and the row id (int8), as text. Ordered
 * by (xid, id); a list only ever reads positions below `pg_snapshot_xmin`, so none can appear later
 * behind one it has passed.
 */
export interface Position {
  xid: string;
  id: string;
}

/** Before every event. */
export const LOG_START: Position = { xid: '0', id: '0' };

let key: Uint8Array | undefined;
/** The installation's cursor secret (the inventory feed's too: payloads differ, so neither reads the other's). */
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

/** Opaque and signed: `<payload>.<mac>`, the payload naming the store it belongs to. */
export async function encodeCursor(em: EntityManager, storeId: number, p: Position): Promise<string> {
  const payload = encodeBase64urlNoPadding(enc.encode(`ev1:${storeId}:${p.xid}:${p.id}`));
  return `${payload}.${encodeBase64urlNoPadding(sign(await secret(em), payload))}`;
}

function invalid(): AppError {
  return new AppError(
    'bad_request',
    'INVALID_CURSOR',
    'cursor is not a next_cursor the events list gave this store',
    {
      extra: { details: [{ path: 'cursor', message: 'not a next_cursor of this list' }] },
    },
  );
}

/** The position a cursor names; 400 `INVALID_CURSOR` for another store's, an edited one or garbage. */
export async function decodeCursor(em: EntityManager, storeId: number, cursor: string): Promise<Position> {
  const [payload, mac, extra] = cursor.split('.');
  if (!payload || !mac || extra !== undefined) throw invalid();
  let given: Uint8Array;
  let text: string;
  try {
    given = decodeBase64urlIgnorePadding(mac);
    text = new TextDecoder('utf-8', { fatal: true }).decode(decodeBase64urlIgnorePadding(payload));
  } catch {
    throw invalid();
  }
  if (!constantTimeEqual(given, sign(await secret(em), payload))) throw invalid();
  const m = /^ev1:(\d+):(\d{1,20}):(\d{1,19})$/.exec(text);
  if (!m || Number(m[1]) !== storeId) throw invalid();
  return { xid: m[2] as string, id: m[3] as string };
}
