import type { EntityManager } from '@mikro-orm/postgresql';
import { openCursor, sealCursor } from '../db/sealed-cursor.ts';
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

/** Opaque and signed, the payload naming the store it belongs to. */
export function encodeCursor(em: EntityManager, storeId: number, p: Position): Promise<string> {
  return sealCursor(em, `ev1:${storeId}:${p.xid}:${p.id}`);
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
  const m = /^ev1:(\d+):(\d{1,20}):(\d{1,19})$/.exec((await openCursor(em, cursor)) ?? '');
  if (!m || Number(m[1]) !== storeId) throw invalid();
  return { xid: m[2] as string, id: m[3] as string };
}
