import type { EntityManager } from '@mikro-orm/postgresql';
import { hmac } from '@oslojs/crypto/hmac';
import { SHA256 } from '@oslojs/crypto/sha2';
import { constantTimeEqual } from '@oslojs/crypto/subtle';
import { decodeBase64urlIgnorePadding, encodeBase64urlNoPadding } from '@oslojs/encoding';
import { db } from '../db/kysely.ts';
import { first, sql } from '../db/sql.ts';
import { AppError } from '../errors.ts';

/** A feed position: the writing transaction's id and the sequence number within the feed. */
export interface Position {
  xid: string;
  seq: string;
}

let key: Uint8Array | undefined;
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
  const payload = encodeBase64urlNoPadding(enc.encode(`1:${storeId}:${p.xid}:${p.seq}`));
  return `${payload}.${encodeBase64urlNoPadding(sign(await secret(em), payload))}`;
}

function invalid(): AppError {
  return new AppError(
    'bad_request',
    'INVALID_CURSOR',
    'updated_since is not a cursor this feed gave out for this store',
    {
      extra: { details: [{ path: 'updated_since', message: 'not a next_cursor of this feed' }] },
    },
  );
}

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
  const m = /^1:(\d+):(\d+):(\d+)$/.exec(text);
  if (!m || Number(m[1]) !== storeId) throw invalid();
  return { xid: m[2] as string, seq: m[3] as string };
}
