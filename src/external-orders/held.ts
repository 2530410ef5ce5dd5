import type { EntityManager } from '@mikro-orm/postgresql';
import { isoTime, rows, sql } from '../db/sql.ts';

/** Held marketplace posts of a store (needing attention): what the dashboard shows to resolve. */
export function listHeldPosts(em: EntityManager, storeId: number) {
  return rows<{
    id: number;
    marketplace: string;
    external_order_id: string;
    reason: string;
    lines: unknown;
    updated_at: string;
  }>(
    em,
    sql`SELECT id, marketplace, external_order_id, hold_reason AS reason, hold_lines AS lines,
        ${isoTime(sql`updated_at`)} AS updated_at
      FROM external_orders WHERE store_id = ${storeId} AND status = 'held' ORDER BY updated_at DESC, id DESC`,
  );
}
