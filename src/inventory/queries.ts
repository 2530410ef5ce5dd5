import type { EntityManager } from '@mikro-orm/postgresql';
import type { Selectable } from 'kysely';
import { EFFECTIVE_PURCHASE_MODE } from '../catalogue/filters.ts';
import { type DB, db } from '../db/kysely.ts';
import { ownedBy } from '../db/owned-by.ts';
import { first, isoTime, type RawBuilder, rows, run, sql } from '../db/sql.ts';
import { AppError, notFound } from '../errors.ts';
import type { Position } from './cursor.ts';
import { VARIANTS_TOTAL } from './stock-total.ts';

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
 * A feed item's total, summed from its variants in the statement that reads them, not the product's
 * stock column: the fan-out job sets that column after the change, so a listing made live while the
 * job runs could show its position with the old total, and the job, not seeing that listing yet,
 * would not move it again. Summed as setStockTotals sums.
 */
const FEED_STOCK = sql<number>`(CASE WHEN p.withdrawn_at IS NULL THEN
    (SELECT ${VARIANTS_TOTAL} FROM product_variants v WHERE v.product_id = p.id)
  ELSE 0 END)`;

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
        ${FEED_STOCK} AS stock_quantity, ${isoTime(sql`GREATEST(p.updated_at, l.updated_at)`)} AS updated_at,
        COALESCE((SELECT json_agg(json_build_object('id', v.id, 'sku', v.sku, 'title', v.title,
            'option_values', v.option_values,
            'quantity_available', CASE WHEN p.withdrawn_at IS NULL THEN v.stock_quantity ELSE 0 END)
            ORDER BY v.position, v.id)
          FROM product_variants v WHERE v.product_id = p.id AND v.retired_at IS NULL), '[]') AS variants
      FROM inventory_feed f
      JOIN products p ON p.id = f.product_id
      LEFT JOIN listings l ON ${ownedBy({ storeId }, 'listings as l')} AND l.product_id = f.product_id
      WHERE ${ownedBy({ storeId }, 'inventory_feed as f')}
        AND (f.xid, f.seq) > (${from.xid}::xid8, ${from.seq}::bigint)
        AND f.xid < pg_snapshot_xmin(pg_current_snapshot())
        AND (SELECT enabled FROM platform_features WHERE name = 'inventory_read')
      ORDER BY f.xid, f.seq
      LIMIT ${limit}`;
}

/** The start of the feed: before every position. */
export const FEED_START: Position = { xid: '0', seq: '0' };

/**
 * The live variant a stock change is for, locked: `variantId` may be left out for a product with a
 * single live variant. A retired variant holds no stock and takes none.
 */
async function stockVariant(tx: EntityManager, productId: number, variantId: number | undefined) {
  const variants = await run(
    db(tx)
      .selectFrom('product_variants')
      .select((eb) => ['id', eb('retired_at', 'is not', null).$castTo<boolean>().as('retired')])
      .where('product_id', '=', productId)
      .orderBy('position')
      .orderBy('id')
      .forUpdate(),
  );
  if (!variants.length) throw notFound(`No catalogue product with id ${productId}`, 'PRODUCT_NOT_FOUND');
  const live = variants.filter((v) => !v.retired);
  if (variantId === undefined) {
    if (live.length !== 1) {
      throw new AppError(
        'bad_request',
        'VARIANT_REQUIRED',
        `Product ${productId} has ${live.length} variants: name one`,
      );
    }
    return live[0]?.id as number;
  }
  const variant = variants.find((v) => v.id === variantId);
  if (!variant) throw notFound(`Product ${productId} has no variant ${variantId}`, 'VARIANT_NOT_FOUND');
  if (variant.retired) throw new AppError('conflict', 'VARIANT_RETIRED', `Variant ${variantId} is retired`);
  return variant.id;
}

/**
 * Writes a variant's stock (`set` replaces it: a supplier's stock update; `add` adds to it: goods
 * received). The same transaction enqueues the fan-out that sets the product's total and brings the
 * change to every store listing it (`inventory.updated`, the feed); `product_stock` is that total.
 */
export async function writeStock(
  em: EntityManager,
  productId: number,
  variantId: number | undefined,
  change: { set: number } | { add: number },
) {
  return em.transactional(async (tx) => {
    const target = await stockVariant(tx, productId, variantId);
    const variant = await first(
      db(tx)
        .updateTable('product_variants')
        // Computed in bigint: past PostgreSQL's integer, the write itself fails (22003), not the sum.
        .set((eb) => ({
          stock_quantity:
            'set' in change
              ? eb.cast<number>(eb.val(change.set), 'bigint')
              : eb(
                  eb.cast<number>('stock_quantity', 'bigint'),
                  '+',
                  eb.cast<number>(eb.val(change.add), 'bigint'),
                ),
        }))
        .where('id', '=', target)
        .returning('stock_quantity'),
    ).catch((err: unknown) => {
      // The variant's stock past PostgreSQL's integer.
      if ((err as { code?: string }).code === '22003') throw stockOutOfRange();
      throw err;
    });
    // Every variant of the product is locked (stockVariant), so this sum is the total the fan-out
    // job will write (src/inventory/stock-total.ts); past the column's integer, nothing is written.
    const [after] = await rows<{ total: string }>(
      tx,
      sql`SELECT COALESCE(sum(stock_quantity::bigint), 0)::text AS total FROM product_variants WHERE product_id = ${productId}`,
    );
    const total = Number(after?.total ?? 0);
    if (total > 2_147_483_647) throw stockOutOfRange();
    return {
      product_id: productId,
      variant_id: target,
      quantity: variant?.stock_quantity ?? 0,
      product_stock: total,
    };
  });
}

function stockOutOfRange() {
  return new AppError('bad_request', 'STOCK_OUT_OF_RANGE', 'That stock would exceed 2147483647 units', {
    extra: { details: [{ path: 'quantity', message: 'the stock would exceed 2147483647' }] },
  });
}
