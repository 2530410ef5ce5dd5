import type { EntityManager } from '@mikro-orm/postgresql';
import type { Selectable, Updateable } from 'kysely';
import type { z } from 'zod';
import { EFFECTIVE_PURCHASE_MODE, minimumPrice, SELLABLE_STOCK } from '../catalogue/filters.ts';
import { type DB, db } from '../db/kysely.ts';
import { ownedBy } from '../db/owned-by.ts';
import { first, isoTime, type RawBuilder, rows, run, sql } from '../db/sql.ts';
import { AppError, field, notFound } from '../errors.ts';
import { domainEvent, productEventsFrom, recordEvents } from '../events/outbox.ts';
import { EVENT, type ProductEvent } from '../events/vocabulary/index.ts';
import { loadCatalogueContext, type StoreCatalogueContext } from '../store/catalogue-context.ts';
import type { bulkAddOutput, ListingListItem, Skip, VendorProduct } from './schemas.ts';

export type Item = ListingListItem;
type Variant = NonNullable<Item['variants']>[number];

/*
 * Raw SQL on purpose: the listings list and detail are hot paths (`/my-products`), and built with
 * kysely's builder the list cost 176 µs of CPU a request against 39 µs for these templates (build and
 * compile, measured in-process); the bench's my-products scenario fell from 79% to 72% of its raw
 * baseline (docs/benchmarks.md). Row types are derived from the answer's schema and the tables.
 */

/** A store's live listings joined with their products; `l` and `p` as everywhere in the catalogue. */
export const LIVE = (storeId: number) => sql`listings l JOIN products p ON p.id = l.product_id
  WHERE ${ownedBy({ storeId }, 'listings as l')} AND l.deleted_at IS NULL`;

/** The channels a listing is kept off: the supplier's and the store's own, sorted. */
export const HIDDEN_CHANNELS = sql<
  Item['hidden_channels']
>`ARRAY(SELECT DISTINCT c FROM unnest(p.hidden_channels || l.hidden_channels) c ORDER BY c)`;

/** The columns of `Row`, read from `LIVE`. */
export const COLUMNS = sql`l.id, p.id AS product_id, p.name, l.custom_title, p.sku,
  p.image_url, p.wholesale_price_cents, p.retail_price_cents, l.custom_retail_price_cents,
  COALESCE(l.custom_retail_price_cents, p.retail_price_cents) AS effective_retail_price_cents,
  ${EFFECTIVE_PURCHASE_MODE} AS purchase_mode, l.vendor_fulfilled,
  COALESCE(p.owner_store_id = l.store_id, false) AS own_goods, p.active, ${SELLABLE_STOCK} AS stock_quantity,
  ${HIDDEN_CHANNELS} AS hidden_channels, ${isoTime(sql`p.withdrawn_at`)} AS withdrawn_at,
  ${isoTime(sql`l.created_at`)} AS created_at, ${isoTime(sql`l.updated_at`)} AS updated_at`;

/** A listing as `COLUMNS` reads it: the answer's fields, and whether its product is still active. */
export type Row = Omit<Item, 'in_stock' | 'options' | 'variants'> &
  Pick<Selectable<DB['products']>, 'active'>;

type VariantRow = Pick<
  Selectable<DB['product_variants']>,
  'product_id' | 'id' | 'sku' | 'title' | 'retail_price_cents' | 'stock_quantity'
> & { option_values: Variant['option_values'] };
type OptionRow = Pick<Selectable<DB['product_options']>, 'product_id' | 'name' | 'values'>;

/**
 * A variant can be bought when its product is still in the catalogue, the listing sells by card
 * (not quote-only), and the variant has stock.
 */
export function availableForSale(listing: Row, quantity: number): boolean {
  return listing.active && listing.purchase_mode === 'buy_now' && quantity > 0;
}

export function base(r: Row) {
  const { active: _active, ...rest } = r;
  return { ...rest, in_stock: r.stock_quantity > 0 };
}

export async function variantsOf(em: EntityManager, productIds: number[]) {
  const [variants, options] = await Promise.all([
    rows<VariantRow>(
      em,
      sql`SELECT product_id, id, sku, title, option_values, retail_price_cents, stock_quantity
        FROM product_variants WHERE product_id = ANY(${productIds}::integer[]) AND retired_at IS NULL
        ORDER BY product_id, position, id`,
    ),
    rows<OptionRow>(
      em,
      sql`SELECT product_id, name, "values" FROM product_options
        WHERE product_id = ANY(${productIds}::integer[]) ORDER BY product_id, position, id`,
    ),
  ]);
  const byProduct = <T extends { product_id: number }>(list: T[]) => {
    const map = new Map<number, T[]>();
    for (const item of list) map.set(item.product_id, [...(map.get(item.product_id) ?? []), item]);
    return map;
  };
  return { variants: byProduct(variants), options: byProduct(options) };
}

/** A minimum retail price, in cents like the prices it is checked against. */
export type Cents = Selectable<DB['products']>['retail_price_cents'];

export function belowMinimum(minimum: number): AppError {
  return new AppError(
    'bad_request',
    'PRICE_BELOW_MINIMUM',
    `The retail price must be at least ${minimum} cents for this product`,
    {
      extra: { minimum_price_cents: minimum },
      details: field('custom_retail_price_cents', `must be at least ${minimum}`),
    },
  );
}

/** A listing change's event for its store: ids only. */
export const productEvent = (storeId: number, event: ProductEvent, productId: number) =>
  domainEvent(event, { storeId, entityId: productId, data: { product_id: productId } });

/** The listing as answered by the write operations. */
export async function vendorProduct(
  tx: EntityManager,
  storeId: number,
  productId: number,
): Promise<VendorProduct> {
  const row = await first(
    db(tx)
      .selectFrom('listings as l')
      .innerJoin('products as p', 'p.id', 'l.product_id')
      .select([
        'l.id',
        'l.product_id',
        'l.custom_retail_price_cents',
        EFFECTIVE_PURCHASE_MODE.$castTo<VendorProduct['purchase_mode']>().as('purchase_mode'),
        'l.vendor_fulfilled',
      ])
      .where(ownedBy({ storeId }, 'listings as l'))
      .where('l.product_id', '=', productId),
  );
  if (!row) throw new Error(`listing ${storeId}/${productId} vanished inside its transaction`);
  return row;
}

/** Locks the live listing for an update and returns what the checks need. */
async function lockListing(tx: EntityManager, ctx: StoreCatalogueContext, productId: number) {
  const row = await first(
    db(tx)
      .selectFrom('listings as l')
      .innerJoin('products as p', 'p.id', 'l.product_id')
      .select((eb) => [
        minimumPrice(ctx).$castTo<Cents>().as('minimum'),
        eb.ref('p.purchase_mode').as('catalogue_mode'),
      ])
      .where(ownedBy(ctx, 'listings as l'))
      .where('l.product_id', '=', productId)
      .where('l.deleted_at', 'is', null)
      .forUpdate('l'),
  );
  if (!row) throw notFound(`Product ${productId} is not in your store`, 'NOT_IN_STORE');
  return row;
}

type ListingChange =
  | { kind: 'pricing'; customPrice: number | null }
  | { kind: 'purchase_mode'; mode: 'buy_now' | 'enquiry' }
  | { kind: 'vendor_fulfilled'; value: boolean };

const MESSAGES: Record<ListingChange['kind'], string> = {
  pricing: 'Price updated',
  purchase_mode: 'Selling mode updated',
  vendor_fulfilled: 'Fulfilment updated',
};

/**
 * Reprice, selling mode or fulfilment (set-pricing.ts, set-purchase-mode.ts, set-vendor-fulfilled.ts):
 * each checked under a row lock and announced as product.updated.
 */
export async function updateListing(
  em: EntityManager,
  storeId: number,
  productId: number,
  change: ListingChange,
) {
  return em.transactional(async (tx) => {
    const ctx = await loadCatalogueContext(tx, storeId);
    const current = await lockListing(tx, ctx, productId);
    let set: Updateable<DB['listings']>;
    if (change.kind === 'pricing') {
      if (change.customPrice !== null && change.customPrice < current.minimum)
        throw belowMinimum(current.minimum);
      set = { custom_retail_price_cents: change.customPrice };
    } else if (change.kind === 'purchase_mode') {
      if (change.mode === 'buy_now' && current.catalogue_mode === 'enquiry') {
        throw new AppError(
          'conflict',
          'PURCHASE_MODE_LOCKED',
          'This product is quote-only in the catalogue and cannot be sold with card checkout',
          { details: field('purchase_mode', 'the catalogue sells this product only on quote') },
        );
      }
      set = { purchase_mode: change.mode };
    } else {
      set = { vendor_fulfilled: change.value };
    }
    await run(
      db(tx)
        .updateTable('listings')
        .set({ ...set, updated_at: sql`now()` })
        .where(ownedBy({ storeId }, 'listings'))
        .where('product_id', '=', productId),
    );
    await recordEvents(tx, [productEvent(storeId, EVENT.product.updated, productId)]);
    return { message: MESSAGES[change.kind], vendor_product: await vendorProduct(tx, storeId, productId) };
  });
}

/**
 * A dashboard change to how the store presents a listing: its own title (null restores the
 * catalogue's name) or the channels it is hidden from. The store gets `product.updated`, and the
 * listing's feed position moves (listing trigger) since the feed shows the title.
 */
export async function changeListingPresentation(
  em: EntityManager,
  storeId: number,
  productId: number,
  change: { customTitle?: string | null; hiddenChannels?: string[] },
) {
  return em.transactional(async (tx) => {
    const updated = await run(
      db(tx)
        .updateTable('listings')
        .set({
          updated_at: sql`now()`,
          // What the change leaves out stays as it is.
          ...(change.customTitle !== undefined && { custom_title: change.customTitle }),
          ...(change.hiddenChannels !== undefined && { hidden_channels: change.hiddenChannels }),
        })
        .where(ownedBy({ storeId }, 'listings'))
        .where('product_id', '=', productId)
        .where('deleted_at', 'is', null)
        .returning('id'),
    );
    if (!updated.length) throw notFound(`Product ${productId} is not in store ${storeId}`, 'NOT_IN_STORE');
    await recordEvents(tx, [productEvent(storeId, EVENT.product.updated, productId)]);
    return { store_id: storeId, product_id: productId };
  });
}

/** What a bulk add counts. */
export type Added = Pick<z.output<typeof bulkAddOutput>, 'added' | 'restored'>;

/**
 * The listings added or restored from `source` (product ids as `id`) and their events, as the CTEs
 * `changed` and `events`. Raw SQL: one set-based upsert feeding the event insert, over an id source
 * that is an unnest() of ids or a catalogue filter's SQL fragments.
 */
export const addedFrom = (storeId: number, source: RawBuilder<unknown>) => sql`changed AS (
    INSERT INTO listings (store_id, product_id)
    SELECT ${storeId}, s.id FROM (${source}) s
    ON CONFLICT (store_id, product_id) DO UPDATE SET deleted_at = NULL, updated_at = now(),
      custom_retail_price_cents = NULL, purchase_mode = NULL, vendor_fulfilled = false
    WHERE listings.deleted_at IS NOT NULL
    RETURNING product_id, (xmax <> 0) AS restored
  ), events AS (${productEventsFrom(storeId, EVENT.product.created, sql`changed`)})`;

/** Keeps the first of each id; later repeats are reported as skipped duplicates. */
export function dedupe(ids: number[], skipped: Skip[]): number[] {
  const seen = new Set<number>();
  for (const id of ids) {
    if (seen.has(id)) skipped.push({ product_id: id, reason: 'duplicate' });
    seen.add(id);
  }
  return [...seen];
}
