import type { EntityManager } from '@mikro-orm/postgresql';
import { ownedBy } from '../db/owned-by.ts';
import { likePattern, type RawBuilder, rows, sql } from '../db/sql.ts';
import type { StoreCatalogueContext } from '../store/catalogue-context.ts';
import { channelBit } from './channels.ts';
import type { CatalogueFilters, FacetName } from './schemas.ts';
import { drivingLexemes, inStaticOrder } from './search-terms.ts';

/**
 * A withdrawn product has nothing to sell: its listing reads with no stock, whatever the supplier
 * still holds (docs/decisions.md, "Catalogue maintenance").
 */
export const SELLABLE_STOCK = sql`(CASE WHEN p.withdrawn_at IS NULL THEN p.stock_quantity ELSE 0 END)`;
/** The store's retail price for a product: its custom price when listed with one, else suggested. */
export const EFFECTIVE_RETAIL = sql`COALESCE(l.custom_retail_price_cents, p.retail_price_cents)`;
/** A product quote-only in the catalogue is quote-only in every store, whatever the listing says. */
export const EFFECTIVE_PURCHASE_MODE = sql`(CASE WHEN p.purchase_mode = 'enquiry' THEN 'enquiry'
  ELSE COALESCE(l.purchase_mode, p.purchase_mode) END)`;
const earnAt = (retail: RawBuilder<unknown>) => sql`(CASE p.pricing_type
  WHEN 'commission' THEN ((${retail})::bigint * p.commission_rate_bps + 5000) / 10000
  ELSE ${retail} - p.wholesale_price_cents END)::integer`;
/** The store's earn per sale: at its custom price when it set one. */
export const EARN_PER_SALE = earnAt(EFFECTIVE_RETAIL);
/**
 * The earn per sale at the suggested retail price, the same for every store: indexed by
 * `products_margin_idx` (its expression must stay this one, written on the bare columns).
 */
export const CATALOGUE_EARN_PER_SALE = earnAt(sql`p.retail_price_cents`);

export function minimumPrice(ctx: StoreCatalogueContext): RawBuilder<unknown> {
  return minimumPriceAt(sql`${ctx.minMarginBps}::integer`);
}

/** The minimum retail price of product `p` for a store whose minimum margin is `marginBps`. */
export function minimumPriceAt(marginBps: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`(CASE p.pricing_type
    WHEN 'commission' THEN p.retail_price_cents
    ELSE LEAST(2147483647, ceil(p.wholesale_price_cents::numeric * (10000 + ${marginBps}) / 10000))
    END)::integer`;
}

/**
 * The products a query reads, as `p`: all of them, or with `raw` (a raw category condition every
 * row of the statement must meet) only those that condition admits, read through its index.
 *
 * The subquery's OFFSET 0 keeps PostgreSQL from merging it into the statement, so the raw condition
 * is planned alone: `products_category_raw_idx`, whatever the other conditions and the statistics
 * say. Merged, with cleared statistics PostgreSQL ANDed that index with a bitmap of the visibility
 * condition on `products_facts_idx` (every product's entry, 113 ms at 200k products), and an ordered
 * page could walk a sort index hoping to meet the category early, reading most of the catalogue
 * when the category sits at the far end of the order (or matches nothing). Fenced, a statement reads
 * the raw category's entries and sorts them; PostgreSQL keeps only the columns the statement uses,
 * so counts (and a page in the default order) are an index-only range of the covering index
 * (Migration20261128020000_raw_category_cover).
 */
export function productsFrom(raw?: RawBuilder<unknown> | RawBuilder<unknown>[]): RawBuilder<unknown> {
  if (!raw) return sql`products p`;
  if (!Array.isArray(raw)) return sql`(SELECT * FROM products p WHERE ${raw} OFFSET 0) p`;
  // Disjoint conditions, each read through its own index: an OR of them is one condition PostgreSQL
  // answered by reading every product (price-ranges.ts priceReach).
  const parts = raw.map((c) => sql`SELECT * FROM products p WHERE ${c}`);
  return sql`(${sql.join(parts, sql` UNION ALL `)}) p`;
}

/** Products (see productsFrom) joined with this store's live listing, if any. */
export function catalogueFrom(
  ctx: StoreCatalogueContext,
  raw?: RawBuilder<unknown> | RawBuilder<unknown>[],
): RawBuilder<unknown> {
  return sql`${productsFrom(raw)}
    LEFT JOIN listings l ON l.product_id = p.id AND ${ownedBy(ctx, 'listings as l')} AND l.deleted_at IS NULL`;
}

export interface CatalogueQuery {
  /** Visibility plus the filters that are not facets (search, scope, ownership, exclude_in_store). */
  base: RawBuilder<unknown>[];
  /** One condition per active facet filter, kept apart so facet counts can leave their own out. */
  facets: Partial<Record<FacetName, RawBuilder<unknown>>>;
  /** Set when searching: the relevance expression for sorting. */
  relevance?: RawBuilder<unknown>;
  /** Set when searching: the matches, counted up to SEARCH_RANKED + 1. */
  searchMatches?: number;
  /** With `deferSearch`: the ways the term may match, for the caller to try in order. */
  searchModes?: SearchMode[];
  /** Set when the search's matches all hold some lexemes: read in the static order through their entries. */
  searchLexemes?: string[] | undefined;
  ownership?: { applied: 'own' | 'btab' | 'all'; choices: ('own' | 'btab' | 'all')[] };
  /** Whether some condition reads the store's listing (`l`): without one, `products p` alone will do. */
  readsListing: boolean;
  /**
   * When only the store's customisations (a custom price, a listing's selling mode) make a condition
   * read the listing: the facets as they read for a product the store has not customised, on the
   * product's own columns. A page then reads those products apart from the customised ones
   * (list-products.ts), so a walk of a sort index tests its covering columns and never probes a
   * listing for each entry it passes.
   */
  uncustomised?: Partial<Record<FacetName, RawBuilder<unknown>>>;
  /**
   * A condition every row meets, read through its own covering index; statements then read only
   * the products it admits (productsFrom). Always a raw category value (`category` naming no taxonomy
   * category: only `products_category_raw_idx` answers it without reading every product); in a list,
   * else the most selective brand, supplier or category under other filters (drivers.ts).
   */
  fence?: RawBuilder<unknown>;
}

/** Catalogue rows this store may see at all: approved products, and only its own own-goods. */
export function visibility(ctx: StoreCatalogueContext) {
  return sql`p.active AND (p.owner_store_id IS NULL OR p.owner_store_id = ${ctx.storeId})`;
}

export interface Taxonomy {
  brands: number[];
  categories: number[];
  store_type: number[];
  departments: number[];
  makers: number[];
}

/**
 * Resolves the taxonomy filters (brand, category with its children, store type, the store's
 * departments and makers) to id lists in one small query, so the product scan compares integers
 * against constants and can stay on the covering index.
 */
export async function resolveTaxonomy(
  em: EntityManager,
  ctx: StoreCatalogueContext,
  f: CatalogueFilters,
): Promise<Taxonomy> {
  const category = f.category ?? null;
  const storeType = f.store_type ?? null;
  const [row] = await rows<Taxonomy>(
    em,
    sql`SELECT
      ARRAY(SELECT id FROM brands WHERE lower(name) = lower(${f.brand ?? null}::text) OR slug = lower(${f.brand ?? null}::text)) AS brands,
      ARRAY(WITH RECURSIVE tree AS (
          SELECT id FROM categories WHERE slug = lower(${category}::text) OR lower(name) = lower(${category}::text)
          UNION SELECT c.id FROM categories c JOIN tree ON c.parent_id = tree.id
        ) SELECT id FROM tree) AS categories,
      ARRAY(SELECT c.id FROM categories c LEFT JOIN store_types t ON t.id = c.store_type_id
        WHERE CASE WHEN ${storeType}::text = '_other' THEN t.id IS NULL ELSE t.slug = lower(${storeType}::text) END) AS store_type,
      ARRAY(WITH RECURSIVE tree AS (
          SELECT category_id AS id FROM store_departments WHERE ${ownedBy(ctx, 'store_departments')}
          UNION SELECT c.id FROM categories c JOIN tree ON c.parent_id = tree.id
        ) SELECT id FROM tree) AS departments,
      ARRAY(SELECT supplier_id FROM store_makers WHERE ${ownedBy(ctx, 'store_makers')}) AS makers`,
  );
  if (!row) throw new Error('taxonomy lookup returned no row');
  return row;
}

const anyOf = (column: RawBuilder<unknown>, ids: number[]) => sql`${column} = ANY(${ids}::integer[])`;

/** The supplier's raw category, case-insensitive: the expression of `products_category_raw_idx`. */
export const rawCategoryIs = (value: string) => sql`lower(p.category_raw) = lower(${value}::text)`;

/** Whether `category` is a raw value: given, and naming no taxonomy category. */
export const isRawCategory = (f: CatalogueFilters, tax: Taxonomy | undefined): boolean =>
  f.category !== undefined && tax !== undefined && tax.categories.length === 0;

/**
 * How many matches of a search are ranked by text relevance, and the bound up to which its total
 * is exact. A broad term matches a tenth of a 2M catalogue: ranking and counting every match costs
 * a second, where walking the matches in the order of a static quality score (the recommended score,
 * indexed) reaches this many in milliseconds. So a search ranks the best SEARCH_RANKED matches by
 * that score, and reports a total past it as a lower bound (docs/decisions.md, "Search at scale").
 */
export const SEARCH_RANKED = 1_000;
/** Trigram indexes hold three-character units: a shorter substring would read every product. */
const SUBSTRING_MIN_CHARS = 3;

/**
 * One way a search term matches: the condition and its relevance expression, and the lexemes every
 * match holds when there are any (search-terms.ts).
 */
export interface SearchMode {
  where: RawBuilder<unknown>;
  relevance: RawBuilder<unknown>;
  lexemes?: string[] | undefined;
}

/**
 * The ways a term matches, in the order they are tried: full text first; when it finds nothing
 * among the products the other filters leave (partial words, codes, stop words), a substring of name
 * or SKU (trigram indexes).
 */
async function searchModes(em: EntityManager, term: string): Promise<SearchMode[]> {
  const tsquery = sql`websearch_to_tsquery('english', ${term})`;
  const modes: SearchMode[] = [
    {
      where: sql`p.search_vector @@ ${tsquery}`,
      relevance: sql`ts_rank_cd(p.search_vector, ${tsquery})`,
      lexemes: await drivingLexemes(em, term),
    },
  ];
  if ([...term].length >= SUBSTRING_MIN_CHARS) {
    const pattern = likePattern(term);
    modes.push({
      where: sql`(p.name ILIKE ${pattern} OR p.sku ILIKE ${pattern})`,
      relevance: sql`similarity(p.name, ${term})`,
    });
  }
  return modes;
}

/**
 * A search's matches, counted up to one past SEARCH_RANKED in the static order: through the entries
 * of the lexeme they all hold, or else letting PostgreSQL walk the recommended index for a broad
 * term and stop, or sort a bitmap's few rows for a rare one. An unordered probe (EXISTS) was planned
 * as a scan hoping for an early hit, and read all 2M rows when a term had none.
 */
async function probe(
  em: EntityManager,
  from: RawBuilder<unknown>,
  mode: SearchMode,
  conditions: RawBuilder<unknown>[],
) {
  const matches = inStaticOrder({
    source: from,
    columns: sql`1 AS one`,
    where: sql.join([mode.where, ...conditions], sql` AND `),
    limit: SEARCH_RANKED + 1,
    lexemes: mode.lexemes,
  });
  const [row] = await rows<{ n: number }>(em, sql`SELECT count(*)::integer AS n FROM (${matches}) m`);
  return row?.n ?? 0;
}

/**
 * The FROM of a statement applying every condition of `q`: the store's listings joined only when a
 * condition reads them, and only the products of a raw category value (productsFrom).
 */
export const queryFrom = (ctx: StoreCatalogueContext, q: CatalogueQuery) =>
  q.readsListing ? catalogueFrom(ctx, q.fence) : productsFrom(q.fence);

/** Whether `scope=store` applies: the explicit parameter, else the store's setting (never for removal). */
export function scopesToStore(ctx: StoreCatalogueContext, f: CatalogueFilters, forRemoval = false): boolean {
  return (f.scope ?? (forRemoval ? 'all' : ctx.defaultScope)) === 'store';
}

/** Whether the filters need the taxonomy ids resolved. */
export function needsTaxonomy(ctx: StoreCatalogueContext, f: CatalogueFilters, forRemoval = false): boolean {
  return (
    scopesToStore(ctx, f, forRemoval) ||
    f.brand !== undefined ||
    f.category !== undefined ||
    f.store_type !== undefined
  );
}

/** `ownership` is honoured (and reported) only for a store with own suppliers. */
export function ownershipOf(ctx: StoreCatalogueContext, f: CatalogueFilters): CatalogueQuery['ownership'] {
  return ctx.hasOwnSuppliers ? { applied: f.ownership ?? 'all', choices: ['own', 'btab', 'all'] } : undefined;
}

export async function buildCatalogueQuery(
  em: EntityManager,
  ctx: StoreCatalogueContext,
  f: CatalogueFilters,
  opts: { forRemoval?: boolean; taxonomy?: Taxonomy; deferSearch?: boolean } = {},
): Promise<CatalogueQuery> {
  // Removal is about what the store holds (its live listings, products since withdrawn included),
  // and the store's default browsing scope (a read preference) does not narrow it; only an explicit
  // `scope` does. The search-mode check then looks only at the store's listings too.
  const q: CatalogueQuery = {
    base: opts.forRemoval ? [sql`l.id IS NOT NULL`] : [visibility(ctx)],
    facets: {},
    readsListing: opts.forRemoval === true,
  };

  const scopeStore = scopesToStore(ctx, f, opts.forRemoval);
  const tax = needsTaxonomy(ctx, f, opts.forRemoval)
    ? (opts.taxonomy ?? (await resolveTaxonomy(em, ctx, f)))
    : undefined;
  if (scopeStore && tax) {
    q.base.push(sql`(p.category_id IS NULL OR ${anyOf(sql`p.category_id`, tax.departments)}
      OR ${anyOf(sql`p.supplier_id`, tax.makers)} OR p.owner_store_id = ${ctx.storeId})`);
  }
  const ownership = ownershipOf(ctx, f);
  if (ownership) {
    if (ownership.applied === 'own') q.base.push(sql`p.owner_store_id = ${ctx.storeId}`);
    if (ownership.applied === 'btab') q.base.push(sql`p.owner_store_id IS NULL`);
    q.ownership = ownership;
  }
  // On the join column, so PostgreSQL plans an anti-join (a nested loop can stop after a page);
  // `l.id IS NULL` kept it a left join filtered after joining every product.
  if (f.exclude_in_store) {
    q.base.push(sql`l.product_id IS NULL`);
    q.readsListing = true;
  }

  addFacetFilters(q, f, tax);
  if (q.readsListing && !opts.forRemoval && !f.exclude_in_store) q.uncustomised = uncustomisedFacets(q, f);

  const term = f.search?.trim();
  if (term) await applySearch(em, ctx, q, term, opts.deferSearch);
  return q;
}

/**
 * The search term's first mode that matches anything under the other conditions becomes a condition
 * of `q` (none matching: `false`); deferred, the modes are left for the caller to try.
 */
async function applySearch(
  em: EntityManager,
  ctx: StoreCatalogueContext,
  q: CatalogueQuery,
  term: string,
  defer?: boolean,
) {
  const modes = await searchModes(em, term);
  if (defer) {
    q.searchModes = modes;
    return;
  }
  const others = [...q.base, ...Object.values(q.facets)];
  let mode: SearchMode = { where: sql`false`, relevance: sql`0::real` };
  q.searchMatches = 0;
  for (const m of modes) {
    q.searchMatches = await probe(em, queryFrom(ctx, q), m, others);
    if (q.searchMatches > 0) {
      mode = m;
      break;
    }
  }
  q.base.push(mode.where);
  q.relevance = mode.relevance;
  q.searchLexemes = mode.lexemes;
}

/** A price range whose minimum is not below its maximum (max exclusive): no price lies in it. */
export const emptyPriceRange = (f: CatalogueFilters): boolean =>
  f.price_min_cents !== undefined &&
  f.price_max_cents !== undefined &&
  f.price_min_cents >= f.price_max_cents;

/**
 * Whether some facet filter can match no product whatever the others say: a brand or a store type
 * that names nothing, a channel the readiness pass does not score. A list under one is empty; a
 * search need not walk its word's matches to find that out.
 */
export function matchesNothing(f: CatalogueFilters, tax: Taxonomy | undefined): boolean {
  if (f.complete_for !== undefined && channelBit(f.complete_for) === undefined) return true;
  if (!tax) return false;
  if (f.brand !== undefined && tax.brands.length === 0) return true;
  return f.store_type !== undefined && f.store_type !== '_other' && tax.store_type.length === 0;
}

/** The filters that are facets (each counted without itself): one condition per filter given. */
function addFacetFilters(q: CatalogueQuery, f: CatalogueFilters, tax: Taxonomy | undefined): void {
  if (f.brand !== undefined && tax) q.facets.brand = anyOf(sql`p.brand_id`, tax.brands);
  if (f.category !== undefined && tax) {
    // A value naming a taxonomy category (slug or name) filters by it and its children; any other
    // value is the supplier's raw category, said as `products_category_raw_idx`'s expression.
    if (tax.categories.length) q.facets.category = anyOf(sql`p.category_id`, tax.categories);
    else {
      q.fence = rawCategoryIs(f.category);
      q.facets.category = q.fence;
    }
  }
  if (f.store_type !== undefined && tax) {
    const inType = anyOf(sql`p.category_id`, tax.store_type);
    q.facets.store_type = f.store_type === '_other' ? sql`(p.category_id IS NULL OR ${inType})` : inType;
  }
  if (f.supplier_id !== undefined) q.facets.supplier_id = sql`p.supplier_id = ${f.supplier_id}`;
  if (f.pricing_type !== undefined) q.facets.pricing_type = sql`p.pricing_type = ${f.pricing_type}`;
  if (f.purchase_mode !== undefined) {
    // EFFECTIVE_PURCHASE_MODE = value, said on the bare columns: PostgreSQL estimates these from
    // their statistics, where it guessed the CASE's selectivity and planned a parallel scan for a page.
    q.facets.purchase_mode =
      f.purchase_mode === 'enquiry'
        ? sql`(p.purchase_mode = 'enquiry' OR l.purchase_mode = 'enquiry')`
        : sql`(p.purchase_mode = 'buy_now' AND l.purchase_mode IS DISTINCT FROM 'enquiry')`;
    q.readsListing = true;
  }
  if (f.in_stock !== undefined) {
    q.facets.in_stock = f.in_stock ? sql`p.stock_quantity > 0` : sql`p.stock_quantity = 0`;
  }
  if (f.ready_to_list !== undefined) {
    q.facets.ready_to_list = f.ready_to_list ? sql`p.ready_to_list` : sql`NOT p.ready_to_list`;
  }
  if (f.complete_for !== undefined) {
    const bit = channelBit(f.complete_for);
    // A channel the readiness pass does not score has no complete product.
    q.facets.complete_for =
      bit === undefined ? sql`false` : sql`(p.complete_channels & ${sql.lit(bit)}) <> 0`;
  }
  const price: RawBuilder<unknown>[] = [];
  if (f.price_min_cents !== undefined) price.push(sql`${EFFECTIVE_RETAIL} >= ${f.price_min_cents}`);
  if (f.price_max_cents !== undefined) price.push(sql`${EFFECTIVE_RETAIL} < ${f.price_max_cents}`);
  if (price.length) {
    q.facets.price_band = sql.join(price, sql` AND `);
    q.readsListing = true;
  }
}

/**
 * A product without a customised listing in the store reads at its own price and selling mode, so the
 * conditions on EFFECTIVE_RETAIL and EFFECTIVE_PURCHASE_MODE become conditions on its columns.
 */
function uncustomisedFacets(q: CatalogueQuery, f: CatalogueFilters): CatalogueQuery['facets'] {
  const facets = { ...q.facets };
  if (f.purchase_mode !== undefined) facets.purchase_mode = sql`p.purchase_mode = ${f.purchase_mode}`;
  const price: RawBuilder<unknown>[] = [];
  if (f.price_min_cents !== undefined) price.push(sql`p.retail_price_cents >= ${f.price_min_cents}`);
  if (f.price_max_cents !== undefined) price.push(sql`p.retail_price_cents < ${f.price_max_cents}`);
  if (price.length) facets.price_band = sql.join(price, sql` AND `);
  return facets;
}

/**
 * A live listing of the store that changes how its product reads (a custom price or selling mode):
 * the predicate of `listings_store_custom_idx`, so a probe is one index-only lookup.
 */
export const customisedListing = (ctx: StoreCatalogueContext, product: RawBuilder<unknown>) =>
  sql`EXISTS (SELECT 1 FROM listings c WHERE ${ownedBy(ctx, 'listings as c')} AND c.product_id = ${product}
    AND c.deleted_at IS NULL AND (c.custom_retail_price_cents IS NOT NULL OR c.purchase_mode IS NOT NULL))`;

/** Every condition of the query, for the list and the total count. */
export function whereAll(q: CatalogueQuery): RawBuilder<unknown> {
  return sql.join([...q.base, ...Object.values(q.facets)], sql` AND `);
}
