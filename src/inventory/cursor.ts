import type { EntityManager } from '@mikro-orm/postgresql';
import { openCursor, sealCursor } from '../db/sealed-cursor.ts';
import { AppError } from '../errors.ts';

/** A feed position: the writing transaction's id and the sequence number within the feed. */
export interface Position {
  xid: string;
  seq: string;
}

/** Opaque and signed, the payload naming the store it belongs to. */
export function encodeCursor(em: EntityManager, storeId: number, p: Position): Promise<string> {
  return sealCursor(em, `1:${storeId}:${p.xid}:${p.seq}`);
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
  const m = /^1:(\d+):(\d+):(\d+)$/.exec((await openCursor(em, cursor)) ?? '');
  if (!m || Number(m[1]) !== storeId) throw invalid();
  return { xid: m[2] as string, seq: m[3] as string };
}
