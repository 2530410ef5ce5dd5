import type { EntityManager } from '@mikro-orm/postgresql';
import { type RawBuilder, rows, sql } from '../db/sql.ts';
import type { StoreCatalogueContext } from '../store/catalogue-context.ts';
import { CHANNELS, channelBit } from './channels.ts';
import {
  buildCatalogueQuery,
  type CatalogueQuery,
  catalogueFrom,
  EFFECTIVE_PURCHASE_MODE,
  EFFECTIVE_RETAIL,
} from './filters.ts';
import { type CatalogueFilters, FACET_NAMES, type FacetName } from './schemas.ts';

/** Retail price bands; each value reads as `price_min_cents-price_max_cents` (min inclusive, max exclusive). */
const PRICE_BANDS = [0, 2500, 5000, 10000, 25000, 50000, 100000] as const;

/** One counted value of a facet: rows where `when` holds (and every other active filter). */
interface ValueCount {
  facet: FacetName;
  value: string;
  when: RawBuilder<unknown>;
}

const VALUE_COUNTS: ValueCount[] = [
  { facet: 'pricing_type', value: 'wholesale', when: sql`p.pricing_type = 'wholesale'` },
  { facet: 'pricing_type', value: 'commission', when: sql`p.pricing_type = 'commission'` },
  { facet: 'purchase_mode', value: 'buy_now', when: sql`${EFFECTIVE_PURCHASE_MODE} = 'buy_now'` },
  { facet: 'purchase_mode', value: 'enquiry', when: sql`${EFFECTIVE_PURCHASE_MODE} = 'enquiry'` },
  { facet: 'in_stock', value: 'true', when: sql`p.stock_quantity > 0` },
  { facet: 'in_stock', value: 'false', when: sql`p.stock_quantity = 0` },
  { facet: 'ready_to_list', value: 'true', when: sql`p.ready_to_list` },
  { facet: 'ready_to_list', value: 'false', when: sql`NOT p.ready_to_list` },
  ...PRICE_BANDS.map((lo, i) => {
    const hi = PRICE_BANDS[i + 1];
    const upper = hi === undefined ? sql`true` : sql`${EFFECTIVE_RETAIL} < ${hi}`;
    return {
      facet: 'price_band' as const,
      value: `${lo}-${hi ?? ''}`,
      when: sql`${EFFECTIVE_RETAIL} >= ${lo} AND ${upper}`,
    };
  }),
  ...CHANNELS.map((channel) => ({
    facet: 'complete_for' as const,
    value: channel,
    when: sql`(p.complete_channels & ${channelBit(channel)}) <> 0`,
  })),
];

/**
 * Facets come from two aggregate queries run in parallel over the covering index: one grouped by
 * (brand, category), ~2k groups; one grouped by supplier with a filtered count per value of every
 * small facet. Measured on PostgreSQL 18 at 200k products, this is several times faster than one
 * GROUPING SETS pass (which hashes each row once per set) or joining the per-channel scores. Ids
 * become names afterwards from the small lookup tables.
 */
/** Conditions of every active facet filter except `skip`: the drill-down rule. */
function othersThan(q: CatalogueQuery, skip: FacetName): RawBuilder<unknown> {
  const conds = Object.entries(q.facets)
    .filter(([name]) => name !== skip)
    .map(([, cond]) => cond as RawBuilder<unknown>);
  return conds.length ? sql.join(conds, sql` AND `) : sql`true`;
}

/** A row can count in some facet only if it fails at most one active facet filter. */
function prune(q: CatalogueQuery): RawBuilder<unknown> {
  const conds = Object.values(q.facets) as RawBuilder<unknown>[];
  if (conds.length <= 1) return sql`true`;
  const misses = conds.map((c) => sql`(CASE WHEN ${c} THEN 0 ELSE 1 END)`);
  return sql`(${sql.join(misses, sql` + `)}) <= 1`;
}

interface TaxonomyRow {
  brand: number | null;
  category: number | null;
  counts: number[];
}
interface TermsRow {
  supplier_id: number;
  counts: number[];
}

type Facets = Record<FacetName, { value: string; count: number }[]>;

const counted = (where: RawBuilder<unknown>) => sql`count(*) FILTER (WHERE ${where})::integer`;

function taxonomyQuery(q: CatalogueQuery, from: RawBuilder<unknown>, base: RawBuilder<unknown>) {
  // store_type rides on the category group: a category's count adds to its store type.
  const counts = (['brand', 'category', 'store_type'] as const).map((f) => counted(othersThan(q, f)));
  return sql<TaxonomyRow>`SELECT p.brand_id AS brand, p.category_id AS category, ARRAY[${sql.join(counts, sql`, `)}] AS counts
    FROM ${from} WHERE ${base} AND ${prune(q)}
    GROUP BY p.brand_id, p.category_id`;
}

function termsQuery(q: CatalogueQuery, from: RawBuilder<unknown>, base: RawBuilder<unknown>) {
  const counts = [
    counted(othersThan(q, 'supplier_id')),
    ...VALUE_COUNTS.map((v) => counted(sql`${othersThan(q, v.facet)} AND ${v.when}`)),
    counted(whereFacets(q)),
  ];
  return sql<TermsRow>`SELECT p.supplier_id, ARRAY[${sql.join(counts, sql`, `)}] AS counts
    FROM ${from} WHERE ${base} AND ${prune(q)}
    GROUP BY p.supplier_id`;
}

function whereFacets(q: CatalogueQuery): RawBuilder<unknown> {
  const conds = Object.values(q.facets) as RawBuilder<unknown>[];
  return conds.length ? sql.join(conds, sql` AND `) : sql`true`;
}

export async function catalogueFacets(em: EntityManager, ctx: StoreCatalogueContext, f: CatalogueFilters) {
  const q = await buildCatalogueQuery(em, ctx, f);
  const from = catalogueFrom(ctx);
  const base = sql.join(q.base, sql` AND `);
  const [taxonomy, terms, brands, categories] = await Promise.all([
    rows(em, taxonomyQuery(q, from, base)),
    rows(em, termsQuery(q, from, base)),
    rows<{ id: number; name: string }>(em, sql`SELECT id, name FROM brands`),
    rows<{ id: number; slug: string; type: string | null }>(
      em,
      sql`SELECT c.id, c.slug, t.slug AS type FROM categories c LEFT JOIN store_types t ON t.id = c.store_type_id`,
    ),
  ]);

  const brandName = new Map(brands.map((b) => [b.id, b.name]));
  const category = new Map(categories.map((c) => [c.id, c]));
  const sums = Object.fromEntries(FACET_NAMES.map((n) => [n, new Map<string, number>()])) as Record<
    FacetName,
    Map<string, number>
  >;
  const add = (name: FacetName, value: string | undefined, count: number | undefined) => {
    if (value === undefined || !count) return;
    sums[name].set(value, (sums[name].get(value) ?? 0) + count);
  };
  for (const row of taxonomy) {
    const [brandCount, categoryCount, typeCount] = row.counts;
    add('brand', row.brand === null ? undefined : brandName.get(row.brand), brandCount);
    const c = row.category === null ? undefined : category.get(row.category);
    add('category', c?.slug, categoryCount);
    add('store_type', c?.type ?? '_other', typeCount);
  }
  let total = 0;
  for (const row of terms) {
    const [supplier, ...values] = row.counts;
    add('supplier_id', String(row.supplier_id), supplier);
    for (const [i, v] of VALUE_COUNTS.entries()) add(v.facet, v.value, values[i]);
    total += values[VALUE_COUNTS.length] ?? 0;
  }

  const facets = {} as Facets;
  for (const name of FACET_NAMES) {
    const list = [...sums[name]].map(([value, count]) => ({ value, count }));
    if (name === 'price_band')
      list.sort((a, b) => Number.parseInt(a.value, 10) - Number.parseInt(b.value, 10));
    else list.sort((a, b) => b.count - a.count || a.value.localeCompare(b.value));
    facets[name] = list;
  }
  return { facets, total_count: total, ...(q.ownership ? { ownership: q.ownership } : {}) };
}
