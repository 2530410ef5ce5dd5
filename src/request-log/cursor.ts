import type { EntityManager } from '@mikro-orm/postgresql';
import type { Owner } from '../db/owned-by.ts';
import { openCursor, sealCursor } from '../db/sealed-cursor.ts';
import { AppError } from '../errors.ts';

/** A place in the newest-first order: the last row's arrival (PostgreSQL's text of it) and id. */
export interface Position {
  createdAt: string;
  id: string;
}

/**
 * Opaque and signed, naming the store, the mode and a digest of the filters it was issued under, so a
 * cursor cannot be carried to another store, mode or filter.
 */
export function encodeCursor(em: EntityManager, owner: Owner, filters: string, p: Position): Promise<string> {
  return sealCursor(em, `rq1:${owner.storeId}:${owner.livemode ? 1 : 0}:${filters}:${p.id}:${p.createdAt}`);
}

/** The position a cursor names; 400 `INVALID_CURSOR` for another store's, mode's or filter's, an edited one or garbage. */
export async function decodeCursor(
  em: EntityManager,
  owner: Owner,
  filters: string,
  cursor: string,
): Promise<Position> {
  const m = /^rq1:(\d+):([01]):([0-9a-f]{16}):(\d{1,19}):(.{1,64})$/.exec(
    (await openCursor(em, cursor)) ?? '',
  );
  if (!m || Number(m[1]) !== owner.storeId || m[2] !== (owner.livemode ? '1' : '0') || m[3] !== filters) {
    throw new AppError(
      'bad_request',
      'INVALID_CURSOR',
      'cursor is not a next_cursor this list gave for these filters',
      {
        extra: { details: [{ path: 'cursor', message: 'not a next_cursor of this list and filters' }] },
      },
    );
  }
  return { id: m[4] as string, createdAt: m[5] as string };
}
