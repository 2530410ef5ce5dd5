import type { EntityManager } from '@mikro-orm/postgresql';
import type { Selectable } from 'kysely';
import { EFFECTIVE_PURCHASE_MODE, SELLABLE_STOCK } from '../catalogue/filters.ts';
import type { DB } from '../db/kysely.ts';
import { isoTime, type RawBuilder, rows, sql } from '../db/sql.ts';
import { decodeCursor, encodeCursor, type Position } from './cursor.ts';

type Product = Selectable<DB['products']>;
type VariantRow = Selectable<DB['product_variants']>;

/**
 * A row of the feed statement: its position as text (xid8 and int8 have no JavaScript number), the
 * product with its listing state, and its live variants as json, named as the contract names them.
 */
export type FeedRow = Pick<Product, 'sku' | 'name' | 'withdrawn_at' | 'stock_quantity' | 'updated_at'> & {
  product_id: Product['id'];
  xid: string;
  seq: Selectable<DB['inventory_feed']>['seq'];
  listed: boolean;
  sellable: boolean;
  variants: (Pick<VariantRow, 'id' | 'sku' | 'title'> & {
    option_values: Record<string, string>;
    quantity_available: VariantRow['stock_quantity'];
  })[];
};

/**
 * The feed statement: up to `limit` positions after `from`, oldest first, each with its product, its
 * listing state and its variants. It also reads the `inventory_read` platform switch, as a one-time
 * filter: while the switch is off PostgreSQL returns nothing without scanning, so a page with items
 * proves the switch on and the router asks the switch only for empty pages and refusals (one round
 * trip less a page). Exported so the benchmark's raw baseline runs this very statement.
 * Raw SQL: the keyset is a row comparison on xid8, bounded by pg_snapshot_xmin(pg_current_snapshot()).
 */
export function feedPage(storeId: number, from: Position, limit: number): RawBuilder<FeedRow> {
  return sql<FeedRow>`SELECT f.product_id, f.xid::text AS xid, f.seq::text AS seq, p.sku,
        p.name, (l.id IS NOT NULL AND l.deleted_at IS NULL) AS listed,
        ${isoTime(sql`p.withdrawn_at`)} AS withdrawn_at,
        (p.active AND l.id IS NOT NULL AND l.deleted_at IS NULL AND ${EFFECTIVE_PURCHASE_MODE} = 'buy_now') AS sellable,
        ${SELLABLE_STOCK} AS stock_quantity, ${isoTime(sql`GREATEST(p.updated_at, l.updated_at)`)} AS updated_at,
        COALESCE((SELECT json_agg(json_build_object('id', v.id, 'sku', v.sku, 'title', v.title,
            'option_values', v.option_values,
            'quantity_available', CASE WHEN p.withdrawn_at IS NULL THEN v.stock_quantity ELSE 0 END)
            ORDER BY v.position, v.id)
          FROM product_variants v WHERE v.product_id = p.id AND v.retired_at IS NULL), '[]') AS variants
      FROM inventory_feed f
      JOIN products p ON p.id = f.product_id
      LEFT JOIN listings l ON l.store_id = f.store_id AND l.product_id = f.product_id
      WHERE f.store_id = ${storeId}
        AND (f.xid, f.seq) > (${from.xid}::xid8, ${from.seq}::bigint)
        AND f.xid < pg_snapshot_xmin(pg_current_snapshot())
        AND (SELECT enabled FROM platform_features WHERE name = 'inventory_read')
      ORDER BY f.xid, f.seq
      LIMIT ${limit}`;
}

type Variant = FeedRow['variants'][number] & { available_for_sale: boolean };

/**
 * The variants arrive parsed by pg as fresh objects, already in the contract's field order and names:
 * completed in place rather than copied (one object a variant fewer to allocate).
 */
function completeVariants(r: FeedRow): Variant[] {
  const variants = r.variants as Variant[];
  for (const v of variants) v.available_for_sale = r.sellable && v.quantity_available > 0;
  return variants;
}

/** The start of the feed: before every position. */
export const FEED_START: Position = { xid: '0', seq: '0' };

/**
 * One page of the store's inventory feed, oldest change first. Only positions written by
 * transactions older than every transaction still running are returned, so a change that commits
 * late is never skipped: it is simply not visible until everything before it has finished.
 */
export async function readInventory(
  em: EntityManager,
  storeId: number,
  updatedSince: string | undefined,
  limit: number,
) {
  // Only an absent cursor starts from the beginning; an empty one is as invalid as any other.
  const from = updatedSince !== undefined ? await decodeCursor(em, storeId, updatedSince) : FEED_START;
  const page = await rows(em, feedPage(storeId, from, limit + 1));
  const items = page.slice(0, limit);
  const last = items.at(-1);
  return {
    items: items.map((r) => ({
      product_id: r.product_id,
      sku: r.sku,
      name: r.name,
      listed: r.listed,
      withdrawn_at: r.withdrawn_at,
      in_stock: r.stock_quantity > 0,
      stock_quantity: r.stock_quantity,
      variants: completeVariants(r),
      updated_at: r.updated_at,
    })),
    // Always present: with nothing new, the position the caller already had.
    next_cursor: await encodeCursor(em, storeId, last ? { xid: last.xid, seq: last.seq } : from),
    has_more: page.length > limit,
  };
}
