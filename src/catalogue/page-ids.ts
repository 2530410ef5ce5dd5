import { ownedBy } from '../db/owned-by.ts';
import { type RawBuilder, sql } from '../db/sql.ts';
import type { StoreCatalogueContext } from '../store/catalogue-context.ts';
import {
  CATALOGUE_EARN_PER_SALE,
  type CatalogueQuery,
  customisedListing,
  productsFrom,
  whereAll,
} from './filters.ts';
import type { FacetName, ListInput } from './schemas.ts';
import type { KeyBound } from './slice-bounds.ts';
import { direction, orderBy, sortBy, sortColumn } from './sort-order.ts';

/**
 * How many entries of a sort index a page walks before it reads the filters' matches and sorts
 * them instead (about 10 ms at 2M products, index-only). A walk is cheap when matches are common
 * early in the order, and unbounded when they are rare or sit at the far end of it (a price range
 * under the wholesale order: 1.8M entries passed for 120 rows); reading the matches first is cheap
 * when they are few. Trying the walk for a bounded length, and only then the matches, keeps each
 * page near the cheaper of the two whatever the statistics say. An object, so a test can cut the
 * walk short on a catalogue of a hundred products.
 */
export const PAGE_WALK = { entries: 30_000, most: 150_000 };

/** A walk of so many entries of the sort index, or the matches read and sorted. */
export type PageMode = { walk: number } | 'matches';

const reachOf = (input: ListInput, offset: string) => String(BigInt(offset) + BigInt(input.limit));

/**
 * How many entries a page's walk reads when its total is known (the cells hold it): the page's
 * reach spread over the sort index as evenly as the matches are over the catalogue, twice over, at
 * least PAGE_WALK.entries and at most PAGE_WALK.most; or `matches` when even the even spread puts
 * the reach past PAGE_WALK.most (matches that few are cheaper read and sorted). A fixed walk gave up
 * at 30,000 entries on matches one in 50 (out-of-stock commission products by SKU: 900 rows, page
 * 45), and their 40,000 matches read and sorted took 1.2 s at 2M where 45,000 entries walked take
 * ~80 ms. Matches bunched along the order (a price under the wholesale order) can still miss the
 * walk: the matches are then read as before, after a walk of at most PAGE_WALK.most entries.
 * `indexed` is the sort index's size (products, with the ones the store does not see); 0 when not
 * known, and the walk is then PAGE_WALK.entries.
 */
export function walkLength(input: ListInput, offset: string, total: number, indexed: number): PageMode {
  if (indexed <= 0 || total <= 0) return { walk: PAGE_WALK.entries };
  const spread = Math.ceil((Number(reachOf(input, offset)) * indexed) / total);
  if (spread > PAGE_WALK.most) return 'matches';
  return { walk: Math.min(PAGE_WALK.most, Math.max(PAGE_WALK.entries, 2 * spread)) };
}

/**
 * After a walk of `walked` entries found `found` matches, short of the page's reach: a second walk,
 * spread by what the first found (twice the entries its density says the reach needs, at most
 * PAGE_WALK.most), or `matches` when the first found none or its density puts the reach past
 * PAGE_WALK.most. For a total the cells do not hold (a price range off their edges): matches one in
 * 60 under a price and a text order (out-of-stock commission products from 75.01, by name, page 34)
 * were read and sorted whole, 0.9 s at 2M.
 */
export function walkAgain(input: ListInput, offset: string, walked: number, found: number): PageMode {
  if (found <= 0) return 'matches';
  const spread = Math.ceil((Number(reachOf(input, offset)) * walked) / found);
  return spread > PAGE_WALK.most ? 'matches' : { walk: Math.min(PAGE_WALK.most, 2 * spread) };
}

/** Sort keys no filter index carries (Migration20261128110000_sort_key_covers leaves them out). */
const TEXT_KEYS: ReadonlySet<string> = new Set(['name', 'sku']);

/**
 * Whether a page can be chosen by a bounded walk (walkedPageIds): every condition reads columns the
 * covering sort indexes carry (no search, no raw category fence), and the store's listing only for
 * its customisations. The margin order has its own merged streams (marginPageIds).
 */
export function walkable(q: CatalogueQuery, input: ListInput): boolean {
  if (input.sort_by === 'margin' || q.fence || q.searchMatches !== undefined) return false;
  return !q.readsListing || q.uncustomised !== undefined;
}

/** The facets that read the store's listing (its customisations), as CatalogueQuery['uncustomised'] says. */
const LISTING_FACETS: readonly FacetName[] = ['price_band', 'purchase_mode'];

const allOf = (conditions: RawBuilder<unknown>[]) =>
  conditions.length ? sql.join(conditions, sql` AND `) : sql`true`;

/**
 * A filter on the sort key itself, as a range of the walked index: in stock under the stock order
 * starts past the out-of-stock products instead of walking them (200,000 at 2M, none matching, then
 * every match read and sorted: 0.5–2 s for `in_stock=true&sort_by=stock_quantity&order=asc`).
 */
function keyRange(input: ListInput, q: CatalogueQuery): RawBuilder<unknown>[] {
  const stock = q.facets.in_stock;
  return input.sort_by === 'stock_quantity' && stock ? [stock] : [];
}

/**
 * A bounded walk of the sort index: its first `entries` entries (walkLength), the matches among them with
 * their sort key `k`, up to the page's reach. The outer LIMIT stops the walk at the reach; the inner
 * one bounds it when matches are rare. Under a price or selling-mode filter the store's customised
 * listing is looked up only for entries that pass every other condition, and decides how those
 * conditions read for that product (its custom price, its selling mode); the rest read the
 * product's own columns, carried by the covering index.
 */
function walkPart(
  ctx: StoreCatalogueContext,
  q: CatalogueQuery,
  input: ListInput,
  reach: string,
  entries: number,
  bound?: KeyBound,
) {
  const key = sortColumn(input);
  const facets = Object.entries(q.facets) as [FacetName, RawBuilder<unknown>][];
  const own = allOf([...q.base, ...facets.filter(([f]) => !LISTING_FACETS.includes(f)).map(([, c]) => c)]);
  const ranges = [...(bound ? [sql`${key} BETWEEN ${bound.lo} AND ${bound.hi}`] : []), ...keyRange(input, q)];
  const within = ranges.length ? sql`WHERE ${allOf(ranges)}` : sql``;
  const walk = (columns: RawBuilder<unknown>) => sql`SELECT p.id AS product_id, ${key} AS k, ${own} AS ok
    ${columns} FROM products p ${within} ORDER BY ${orderBy(input)} LIMIT ${entries}`;
  if (!q.uncustomised) return sql`(SELECT product_id, k FROM (${walk(sql``)}) w WHERE ok LIMIT ${reach})`;
  const listed = LISTING_FACETS.filter((f) => q.facets[f]);
  const plain = allOf(listed.map((f) => q.uncustomised?.[f] ?? sql`true`));
  // Within a bound only the products read at their own price: the customised ones are read apart
  // (customisedParts), since a custom price can put a product in the range whatever its own key.
  if (bound)
    return sql`(SELECT w.product_id, w.k FROM (${walk(sql`, ${plain} AS plain`)}) w
      WHERE w.ok AND w.plain AND NOT ${customisedListing(ctx, sql`w.product_id`)} LIMIT ${reach})`;
  // `p` is re-read from the walked row, so the facets' own conditions on `p` and `l` apply as said.
  return sql`(SELECT w.product_id, w.k FROM (
      ${walk(sql`, ${plain} AS plain, p.retail_price_cents, p.purchase_mode`)}
    ) w
    LEFT JOIN listings l ON ${ownedBy(ctx, 'listings as l')} AND l.product_id = w.product_id AND l.deleted_at IS NULL
      AND (l.custom_retail_price_cents IS NOT NULL OR l.purchase_mode IS NOT NULL)
    CROSS JOIN LATERAL (SELECT w.retail_price_cents, w.purchase_mode) p
    WHERE w.ok AND CASE WHEN l.id IS NULL THEN w.plain ELSE ${allOf(listed.map((f) => q.facets[f] ?? sql`true`))} END
    LIMIT ${reach})`;
}

/**
 * The products of a page the store has not customised, every match read (through `fence`, a
 * driver's covering index, when given) and sorted, up to the page's reach. Under the retail order a
 * price range is a range of that same index, read in order.
 */
function matchesPart(
  ctx: StoreCatalogueContext,
  q: CatalogueQuery,
  input: ListInput,
  reach: string,
  fence?: RawBuilder<unknown>,
): RawBuilder<unknown> {
  const key = sortColumn(input);
  const conditions = allOf([...q.base, ...Object.values(q.uncustomised ?? q.facets)]);
  // Probed only for the rows that pass the product's own conditions.
  const mine = q.uncustomised ? sql`NOT ${customisedListing(ctx, sql`m.product_id`)}` : sql`true`;
  const inOrder = sortBy(sql`k`, direction(input), sql`product_id`);
  const priced = input.price_min_cents !== undefined || input.price_max_cents !== undefined;
  // OFFSET 0: the matches are read and then sorted, never found by walking the sort index.
  const fenced = input.sort_by === 'retail_price_cents' && priced && !fence ? sql`` : sql`OFFSET 0`;
  // A text key (name, SKU) rides in no filter index: the matches are found index-only first and
  // only they are read by key for it, where reading the key beside the filters fetched every entry
  // of the filter's range (a category's 100,000 heap rows for the 15,000 in stock under a price).
  const matched = TEXT_KEYS.has(input.sort_by ?? 'created_at')
    ? sql`(SELECT p.id FROM ${productsFrom(fence)} WHERE ${conditions} OFFSET 0) t JOIN products p ON p.id = t.id`
    : sql`${productsFrom(fence)} WHERE ${conditions}`;
  return sql`(SELECT product_id, k FROM (
      SELECT p.id AS product_id, ${key} AS k FROM ${matched}
      ORDER BY ${orderBy(input)} ${fenced}
    ) m WHERE ${mine} ORDER BY ${inOrder} LIMIT ${reach})`;
}

/**
 * The store's customised listings that match, with their sort key: those re-priced (a range of the
 * custom prices under a price filter) and those that change only the selling mode, each through its
 * own index (Migration20261128080000_listing_customisation_indexes). Their products are joined
 * plainly, never through the driver's fence: fenced, PostgreSQL read the whole fence (or a sort index
 * whole) to meet 8,000 listings it could look up by key (600 ms against ~50 at 2M).
 */
function customisedParts(
  ctx: StoreCatalogueContext,
  q: CatalogueQuery,
  input: ListInput,
  reach: string,
): RawBuilder<unknown>[] {
  const key = sortColumn(input);
  const part = (customised: RawBuilder<unknown>[]) =>
    sql`(SELECT p.id AS product_id, ${key} AS k FROM listings l JOIN products p ON p.id = l.product_id
      WHERE ${ownedBy(ctx, 'listings as l')} AND l.deleted_at IS NULL AND ${sql.join(customised, sql` AND `)}
        AND ${whereAll(q)}
      ORDER BY ${orderBy(input)} LIMIT ${reach})`;
  const min = input.price_min_cents;
  const max = input.price_max_cents;
  return [
    part([
      sql`l.custom_retail_price_cents IS NOT NULL`,
      ...(min === undefined ? [] : [sql`l.custom_retail_price_cents >= ${min}`]),
      ...(max === undefined ? [] : [sql`l.custom_retail_price_cents < ${max}`]),
    ]),
    part([sql`l.custom_retail_price_cents IS NULL`, sql`l.purchase_mode IS NOT NULL`]),
  ];
}

/**
 * A walkable page: `mine`, the products' part (to be bound as a CTE of that name, so the caller can
 * count what it found), and `ids`, the page's ids in order. In `walk` mode the page is exact only
 * when `mine` reached `reach` rows; otherwise the caller asks again in `matches` mode, where the
 * store's customised listings are read apart, through their own indexes. Neither mode probes a
 * listing for each entry of the sort index it passes (a price range with a page of the wholesale
 * order ran past the 2 s budget at 2M that way).
 */
export function walkedPageIds(
  ctx: StoreCatalogueContext,
  q: CatalogueQuery,
  input: ListInput,
  offset: string,
  mode: PageMode,
  fence?: RawBuilder<unknown>,
  bound?: KeyBound,
): { mine: RawBuilder<unknown>; ids: RawBuilder<unknown>; reach: number } {
  const reach = reachOf(input, offset);
  const apart = mode === 'matches' || bound !== undefined;
  const others = apart && q.uncustomised ? customisedParts(ctx, q, input, reach) : [];
  const parts = sql.join([sql`SELECT product_id, k FROM mine`, ...others], sql` UNION ALL `);
  const ids = sql`SELECT product_id FROM (${parts}) s
    ORDER BY ${sortBy(sql`k`, direction(input), sql`product_id`)} LIMIT ${input.limit} OFFSET ${offset}`;
  const mine =
    mode === 'matches'
      ? matchesPart(ctx, q, input, reach, fence)
      : walkPart(ctx, q, input, reach, mode.walk, bound);
  return { mine, ids, reach: Number(reach) };
}

/**
 * The ids of a page whose conditions read the listing for more than its customisations (or that
 * searches), in every order but margin: one statement, planned by PostgreSQL.
 */
export function plainPageIds(
  q: CatalogueQuery,
  input: ListInput,
  from: RawBuilder<unknown>,
  where: RawBuilder<unknown>,
  offset: string,
): RawBuilder<unknown> {
  // Filters that never read the store's listing choose the page on products alone: a deep page
  // then skips entries of a covering sort index instead of probing a listing for each.
  const source = q.readsListing ? from : productsFrom(q.fence);
  return sql`SELECT p.id AS product_id FROM ${source} WHERE ${where}
    ORDER BY ${orderBy(input)} LIMIT ${input.limit} OFFSET ${offset}`;
}

/**
 * The ids of a page in the margin order. Sorting by margin would compute every match's earn per
 * sale at the store's own prices and sort them all; instead two ordered streams are merged:
 * products the store has not re-priced, in the order of the indexed catalogue margin (equal to
 * theirs), read only as far as the page needs; and the store's re-priced listings, few, sorted by
 * their own margin.
 */
export function marginPageIds(
  ctx: StoreCatalogueContext,
  q: CatalogueQuery,
  input: ListInput,
  from: RawBuilder<unknown>,
  where: RawBuilder<unknown>,
  offset: string,
  fence?: RawBuilder<unknown>,
  bound?: KeyBound,
): RawBuilder<unknown> {
  const dir = direction(input);
  const reach = reachOf(input, offset);
  // A product not re-priced reads at its own price: under a price filter (and no selling-mode one)
  // its stream tests the product's columns, and probes a listing only for the rows that pass them.
  const plain = q.uncustomised && input.purchase_mode === undefined;
  const own = plain ? allOf([...q.base, ...Object.values(q.uncustomised ?? {})]) : where;
  // "Not re-priced" as an anti-join: said as `l.custom_retail_price_cents IS NULL`, PostgreSQL
  // estimated from the listings alone (a store that re-priced them all: none pass) and sorted 2M rows.
  const notRepriced = sql`NOT EXISTS (SELECT 1 FROM listings c WHERE ${ownedBy(ctx, 'listings as c')}
    AND c.product_id = p.id AND c.deleted_at IS NULL AND c.custom_retail_price_cents IS NOT NULL)`;
  // Read at its own price, a product in the price range earns within the range's slices' bound
  // (slice-bounds.ts): the stream starts there instead of passing every product priced outside it.
  const within = bound ? sql`AND ${CATALOGUE_EARN_PER_SALE} BETWEEN ${bound.lo} AND ${bound.hi}` : sql``;
  const catalogue = sql`(SELECT p.id AS product_id, ${CATALOGUE_EARN_PER_SALE} AS margin
      FROM ${plain ? productsFrom(fence) : from}
      WHERE ${own} AND ${notRepriced} ${within}
      ORDER BY ${sortBy(CATALOGUE_EARN_PER_SALE, dir)} LIMIT ${reach})`;
  // The store's re-priced listings in the order of their kept earn per sale (`custom_earn_cents`,
  // equal to EARN_PER_SALE there: Migration20261125100000_listing_earn), an index range per store.
  // Under a price filter also a range of their custom prices, which PostgreSQL may read instead of
  // walking the earn order (34,862 listings looked up for 3 commission products in a range: 0.58 s).
  const earn = sql`l.custom_earn_cents`;
  const min = input.price_min_cents;
  const max = input.price_max_cents;
  const repriced = sql`(SELECT p.id AS product_id, ${earn} AS margin
      FROM listings l JOIN products p ON p.id = l.product_id
      WHERE ${ownedBy(ctx, 'listings as l')} AND l.deleted_at IS NULL AND l.custom_retail_price_cents IS NOT NULL
        ${min === undefined ? sql`` : sql`AND l.custom_retail_price_cents >= ${min}`}
        ${max === undefined ? sql`` : sql`AND l.custom_retail_price_cents < ${max}`}
        AND ${where}
      ORDER BY ${dir === 'asc' ? sql`${earn} ASC, l.product_id ASC` : sql`${earn} DESC, l.product_id DESC`}
      LIMIT ${reach})`;
  const merged = dir === 'asc' ? sql`margin ASC, product_id ASC` : sql`margin DESC, product_id DESC`;
  return sql`SELECT product_id FROM (${catalogue} UNION ALL ${repriced}) s
    ORDER BY ${merged} LIMIT ${input.limit} OFFSET ${offset}`;
}
