import type { EntityManager } from '@mikro-orm/postgresql';
import type { Selectable, SqlBool, Updateable } from 'kysely';
import type { z } from 'zod';
import {
  buildCatalogueQuery,
  catalogueFrom,
  EFFECTIVE_PURCHASE_MODE,
  minimumPrice,
  visibility,
  whereAll,
} from '../catalogue/filters.ts';
import type { CatalogueFilters } from '../catalogue/schemas.ts';
import { type DB, db } from '../db/kysely.ts';
import { first, type RawBuilder, rows, run, sql } from '../db/sql.ts';
import { AppError, notFound } from '../errors.ts';
import { enqueueDispatch, type ProductEvent, productEventsFrom, recordEvents } from '../events/outbox.ts';
import { loadCatalogueContext, type StoreCatalogueContext } from '../store/catalogue-context.ts';
import type { BulkInput, bulkAddOutput, bulkRemoveOutput, Skip, VendorProduct } from './schemas.ts';

/** A minimum retail price, in cents like the prices it is checked against. */
type Cents = Selectable<DB['products']>['retail_price_cents'];

function belowMinimum(minimum: number): AppError {
  return new AppError(
    'bad_request',
    'PRICE_BELOW_MINIMUM',
    `The retail price must be at least ${minimum} cents for this product`,
    { extra: { minimum_price_cents: minimum } },
  );
}

/** A listing change's event for its store: ids only. */
export const productEvent = (storeId: number, event: ProductEvent, productId: number) => ({
  storeId,
  event,
  entityId: productId,
  data: { product_id: productId },
});

/** The listing as answered by the write operations. */
async function vendorProduct(tx: EntityManager, storeId: number, productId: number): Promise<VendorProduct> {
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
      .where('l.store_id', '=', storeId)
      .where('l.product_id', '=', productId),
  );
  if (!row) throw new Error(`listing ${storeId}/${productId} vanished inside its transaction`);
  return row;
}

/**
 * Adds a catalogue product to the store, or restores it if it was removed (keeping its earlier
 * settings unless a price is given). A product already in the store is a 409: the caller meant
 * something else (a price change is PUT /pricing).
 */
export async function addListing(
  em: EntityManager,
  storeId: number,
  productId: number,
  customPrice?: number,
) {
  return em.transactional(async (tx) => {
    const ctx = await loadCatalogueContext(tx, storeId);
    const product = await first(
      db(tx)
        .selectFrom('products as p')
        .select(minimumPrice(ctx).$castTo<Cents>().as('minimum'))
        .where('p.id', '=', productId)
        .where(visibility(ctx).$castTo<SqlBool>()),
    );
    if (!product) throw notFound(`No catalogue product with id ${productId}`, 'PRODUCT_NOT_FOUND');
    if (customPrice !== undefined && customPrice < product.minimum) throw belowMinimum(product.minimum);
    const written = await first(insertListing(tx, storeId, productId, product.minimum, customPrice));
    if (!written) {
      throw new AppError('conflict', 'ALREADY_LISTED', `Product ${productId} is already in your store`, {
        extra: { product_id: productId },
      });
    }
    await recordEvents(tx, [productEvent(storeId, 'product.created', productId)]);
    return {
      message: written.restored ? 'Product restored to your store' : 'Product added to your store',
      vendor_product: await vendorProduct(tx, storeId, productId),
    };
  });
}

/**
 * A new listing, or a removed one restored (`restored`): its custom price stays if still above the
 * minimum, unless a new one is given. Nothing when the product is listed already.
 */
function insertListing(
  tx: EntityManager,
  storeId: number,
  productId: number,
  minimum: Cents,
  price?: number,
) {
  return (
    db(tx)
      .insertInto('listings')
      .values({ store_id: storeId, product_id: productId, custom_retail_price_cents: price ?? null })
      .onConflict((oc) =>
        oc
          .columns(['store_id', 'product_id'])
          .doUpdateSet((eb) => ({
            deleted_at: null,
            updated_at: sql`now()`,
            custom_retail_price_cents: eb.fn.coalesce(
              'excluded.custom_retail_price_cents',
              eb
                .case()
                .when('listings.custom_retail_price_cents', '>=', minimum)
                .then(eb.ref('listings.custom_retail_price_cents'))
                .end(),
            ),
          }))
          .where('listings.deleted_at', 'is not', null),
      )
      // xmax is set on a row version that an update wrote: the conflict path, a restore.
      .returning(sql<boolean>`(xmax <> 0)`.as('restored'))
  );
}

export async function removeListing(em: EntityManager, storeId: number, productId: number) {
  return em.transactional(async (tx) => {
    const removed = await run(
      db(tx)
        .updateTable('listings')
        .set({ deleted_at: sql`now()`, updated_at: sql`now()` })
        .where('store_id', '=', storeId)
        .where('product_id', '=', productId)
        .where('deleted_at', 'is', null)
        .returning('id'),
    );
    if (removed.length === 0) throw notFound(`Product ${productId} is not in your store`, 'NOT_IN_STORE');
    await recordEvents(tx, [productEvent(storeId, 'product.deleted', productId)]);
    return { message: 'Product removed from your store' };
  });
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
      .where('l.store_id', '=', ctx.storeId)
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

/** Reprice, selling mode or fulfilment: each checked under a row lock and announced as product.updated. */
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
        .where('store_id', '=', storeId)
        .where('product_id', '=', productId),
    );
    await recordEvents(tx, [productEvent(storeId, 'product.updated', productId)]);
    return { message: MESSAGES[change.kind], vendor_product: await vendorProduct(tx, storeId, productId) };
  });
}

/**
 * The width of the product id range a bulk call by filter changes per transaction. Each range's
 * listings, events and cell changes commit together in well under a second, so 100,000 products
 * never hold their key locks, or one snapshot that keeps vacuum from the tables, for the whole call.
 * Ranges rather than "the next N matches": a filter PostgreSQL cannot estimate (an effective price
 * bound) was planned as a walk of the whole catalogue for every batch.
 */
export const BULK_BATCH = 20_000;

/** What a bulk add counts. */
type Added = Pick<z.output<typeof bulkAddOutput>, 'added' | 'restored'>;

/**
 * The listings added or restored from `source` (product ids as `id`) and their events, as the CTEs
 * `changed` and `events`. Raw SQL: one set-based upsert feeding the event insert, over an id source
 * that is an unnest() of ids or a catalogue filter's SQL fragments.
 */
const addedFrom = (storeId: number, source: RawBuilder<unknown>) => sql`changed AS (
    INSERT INTO listings (store_id, product_id)
    SELECT ${storeId}, s.id FROM (${source}) s
    ON CONFLICT (store_id, product_id) DO UPDATE SET deleted_at = NULL, updated_at = now(),
      custom_retail_price_cents = NULL, purchase_mode = NULL, vendor_fulfilled = false
    WHERE listings.deleted_at IS NOT NULL
    RETURNING product_id, (xmax <> 0) AS restored
  ), events AS (${productEventsFrom(storeId, 'product.created', sql`changed`)})`;

/** The products of `ids` the store may see, each with whether the store lists it now. */
function listedState(tx: EntityManager, ctx: StoreCatalogueContext, ids: number[]) {
  return run(
    db(tx)
      .selectFrom('products as p')
      // As catalogueFrom: the store's live listing of the product, if any.
      .leftJoin('listings as l', (join) =>
        join
          .onRef('l.product_id', '=', 'p.id')
          .on('l.store_id', '=', ctx.storeId)
          .on('l.deleted_at', 'is', null),
      )
      .select((eb) => ['p.id', eb('l.id', 'is not', null).$castTo<boolean>().as('listed')])
      .where('p.id', '=', (eb) => eb.fn.any(sql<number[]>`${ids}::integer[]`))
      .where(visibility(ctx).$castTo<SqlBool>()),
  );
}

/**
 * Bulk add at default pricing. `ids` (at most 500): each id is added, restored, or skipped with a
 * reason, in one transaction. `filter`: every catalogue match not already in the store, one product
 * id range of BULK_BATCH at a time, each one transaction (docs/decisions.md, "Bulk by filter").
 */
export async function bulkAdd(em: EntityManager, storeId: number, input: BulkInput, batch = BULK_BATCH) {
  if (input.mode !== 'ids') return bulkAddByFilter(em, storeId, input.filters as CatalogueFilters, batch);
  return em.transactional(async (tx) => {
    const ctx = await loadCatalogueContext(tx, storeId);
    const skipped: Skip[] = [];
    const ids = dedupe(input.product_ids ?? [], skipped);
    const found = await listedState(tx, ctx, ids);
    const state = new Map(found.map((r) => [r.id, r.listed]));
    for (const id of ids) {
      const listed = state.get(id);
      if (listed === undefined) skipped.push({ product_id: id, reason: 'not_found' });
      else if (listed) skipped.push({ product_id: id, reason: 'already_listed' });
    }
    const eligible = found.filter((r) => !r.listed).map((r) => r.id);
    const [counts] = await rows(
      tx,
      sql<Added>`WITH ${addedFrom(storeId, sql`SELECT unnest(${eligible}::integer[]) AS id`)}
        SELECT count(*) FILTER (WHERE NOT restored)::integer AS added,
               count(*) FILTER (WHERE restored)::integer AS restored
        FROM changed`,
    );
    const result = { added: counts?.added ?? 0, restored: counts?.restored ?? 0, skipped };
    if (result.added + result.restored > 0) await enqueueDispatch(tx);
    return result;
  });
}

async function bulkAddByFilter(em: EntityManager, storeId: number, filters: CatalogueFilters, batch: number) {
  // The filter is resolved once (taxonomy, the search's mode); each batch then takes its id range.
  const ctx = await loadCatalogueContext(em, storeId);
  const where = whereAll(await buildCatalogueQuery(em, ctx, filters));
  const total = { added: 0, restored: 0, skipped: [] as Skip[] };
  const span = idSpan(
    await first(
      db(em)
        .selectFrom('products')
        .select((eb) => [eb.fn.min<Id | null>('id').as('lo'), eb.fn.max<Id | null>('id').as('hi')]),
    ),
  );
  for (let lo = span.lo; lo <= span.hi; lo += batch) {
    const step = await em.transactional(async (tx) => {
      const [row] = await rows(
        tx,
        sql<Added>`WITH ${addedFrom(
          storeId,
          sql`SELECT p.id FROM ${catalogueFrom(ctx)}
            WHERE p.id BETWEEN ${lo} AND ${lo + batch - 1} AND ${where} AND l.id IS NULL`,
        )}
          SELECT count(*) FILTER (WHERE NOT restored)::integer AS added,
            count(*) FILTER (WHERE restored)::integer AS restored
          FROM changed`,
      );
      if ((row?.added ?? 0) + (row?.restored ?? 0) > 0) await enqueueDispatch(tx);
      return row;
    });
    total.added += step?.added ?? 0;
    total.restored += step?.restored ?? 0;
  }
  return total;
}

type Id = Selectable<DB['products']>['id'];

/** The lowest and highest id of a min/max row, `lo` and `hi` (an empty span when there are none). */
function idSpan(span: { lo: Id | null; hi: Id | null } | undefined) {
  return { lo: span?.lo ?? 1, hi: span?.hi ?? 0 };
}

/**
 * Bulk remove (soft delete). `ids`: one transaction. `filter` (with no filters: the whole store):
 * one product id range of BULK_BATCH at a time, each one transaction.
 */
export async function bulkRemove(em: EntityManager, storeId: number, input: BulkInput, batch = BULK_BATCH) {
  if (input.mode !== 'ids') return bulkRemoveByFilter(em, storeId, input.filters as CatalogueFilters, batch);
  return em.transactional(async (tx) => {
    const skipped: Skip[] = [];
    const ids = dedupe(input.product_ids ?? [], skipped);
    // Raw SQL: the removal feeds its events' insert (productEventsFrom) in data-modifying CTEs.
    const removed = await rows(
      tx,
      sql<Pick<Selectable<DB['listings']>, 'product_id'>>`WITH changed AS (
          UPDATE listings l SET deleted_at = now(), updated_at = now()
          WHERE l.store_id = ${storeId} AND l.deleted_at IS NULL AND l.product_id = ANY(${ids}::integer[])
          RETURNING l.product_id
        ), events AS (${productEventsFrom(storeId, 'product.deleted', sql`changed`)})
        SELECT product_id FROM changed`,
    );
    const gone = new Set(removed.map((r) => r.product_id));
    for (const id of ids) if (!gone.has(id)) skipped.push({ product_id: id, reason: 'not_in_store' });
    if (removed.length > 0) await enqueueDispatch(tx);
    return { removed: removed.length, skipped };
  });
}

async function bulkRemoveByFilter(
  em: EntityManager,
  storeId: number,
  filters: CatalogueFilters,
  batch: number,
) {
  const ctx = await loadCatalogueContext(em, storeId);
  const match = whereAll(await buildCatalogueQuery(em, ctx, filters, { forRemoval: true }));
  let removed = 0;
  const span = idSpan(
    await first(
      db(em)
        .selectFrom('listings')
        .select((eb) => [
          eb.fn.min<Id | null>('product_id').as('lo'),
          eb.fn.max<Id | null>('product_id').as('hi'),
        ])
        .where('store_id', '=', storeId)
        .where('deleted_at', 'is', null),
    ),
  );
  for (let lo = span.lo; lo <= span.hi; lo += batch) {
    const step = await em.transactional(async (tx) => {
      // Raw SQL: as the removal by ids, with the filter's SQL fragments (`p` and `l`) as its match.
      const [row] = await rows(
        tx,
        sql<Pick<z.output<typeof bulkRemoveOutput>, 'removed'>>`WITH changed AS (
            UPDATE listings l SET deleted_at = now(), updated_at = now() FROM products p
            WHERE p.id = l.product_id AND l.store_id = ${storeId} AND l.deleted_at IS NULL
              AND l.product_id BETWEEN ${lo} AND ${lo + batch - 1} AND ${match}
            RETURNING l.product_id
          ), events AS (${productEventsFrom(storeId, 'product.deleted', sql`changed`)})
          SELECT count(*)::integer AS removed FROM changed`,
      );
      if ((row?.removed ?? 0) > 0) await enqueueDispatch(tx);
      return row;
    });
    removed += step?.removed ?? 0;
  }
  return { removed, skipped: [] as Skip[] };
}

/** Keeps the first of each id; later repeats are reported as skipped duplicates. */
function dedupe(ids: number[], skipped: Skip[]): number[] {
  const seen = new Set<number>();
  for (const id of ids) {
    if (seen.has(id)) skipped.push({ product_id: id, reason: 'duplicate' });
    seen.add(id);
  }
  return [...seen];
}
