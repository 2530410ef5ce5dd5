import type { EntityManager } from '@mikro-orm/postgresql';
import { type RawBuilder, rows, sql } from '../db/sql.ts';
import type { StoreCatalogueContext } from '../store/catalogue-context.ts';
import {
  buildCatalogueQuery,
  type CatalogueQuery,
  catalogueFrom,
  EFFECTIVE_PURCHASE_MODE,
  EFFECTIVE_RETAIL,
  whereAll,
} from './filters.ts';
import { type CatalogueFilters, FACET_NAMES, type FacetName } from './schemas.ts';

// Literals, not parameters, throughout the grouped expressions: PostgreSQL matches GROUPING() and
// select-list expressions to grouping sets textually, and $1 and $7 never match.

/** Retail price bands; each value reads as `price_min_cents-price_max_cents` (min inclusive, max exclusive). */
const PRICE_BANDS = [0, 2500, 5000, 10000, 25000, 50000, 100000] as const;

function priceBandExpression(): RawBuilder<unknown> {
  const cases = PRICE_BANDS.map((lo, i) => {
    const hi = PRICE_BANDS[i + 1];
    return hi === undefined
      ? sql`ELSE ${sql.lit(`${lo}-`)}`
      : sql`WHEN ${EFFECTIVE_RETAIL} < ${sql.lit(hi)} THEN ${sql.lit(`${lo}-${hi}`)}`;
  });
  return sql`(CASE ${sql.join(cases, sql` `)} END)`;
}

/** The value a product contributes to each facet (all but complete_for, which is one-to-many). */
const GROUPED: Record<Exclude<FacetName, 'complete_for'>, RawBuilder<unknown>> = {
  brand: sql`b.name`,
  category: sql`c.slug`,
  store_type: sql`COALESCE(t.slug, '_other')`,
  supplier_id: sql`p.supplier_id::text`,
  pricing_type: sql`p.pricing_type`,
  purchase_mode: sql`${EFFECTIVE_PURCHASE_MODE}`,
  in_stock: sql`(p.stock_quantity > 0)::text`,
  ready_to_list: sql`p.ready_to_list::text`,
  price_band: priceBandExpression(),
};
const GROUPED_NAMES = Object.keys(GROUPED) as Exclude<FacetName, 'complete_for'>[];

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

interface GroupedRow {
  grp: number;
  value: string | null;
  counts: number[];
}

export async function catalogueFacets(em: EntityManager, ctx: StoreCatalogueContext, f: CatalogueFilters) {
  const q = await buildCatalogueQuery(em, ctx, f);
  const from = sql`${catalogueFrom(ctx)}
    LEFT JOIN categories c ON c.id = p.category_id
    LEFT JOIN store_types t ON t.id = c.store_type_id
    LEFT JOIN brands b ON b.id = p.brand_id`;
  const base = sql.join(q.base, sql` AND `);
  // One pass over the candidate rows: a grouping set per facet, and for each facet a count that
  // applies every other active filter. GROUPING() tells which set a result row belongs to.
  const sets = GROUPED_NAMES.map((n) => sql`(${GROUPED[n]})`);
  const counts = GROUPED_NAMES.map((n) => sql`count(*) FILTER (WHERE ${othersThan(q, n)})::integer`);
  const grouping = sql`GROUPING(${sql.join(
    GROUPED_NAMES.map((n) => GROUPED[n]),
    sql`, `,
  )})`;
  const valueExpr = sql`COALESCE(${sql.join(
    GROUPED_NAMES.map((n) => GROUPED[n]),
    sql`, `,
  )})`;
  const [grouped, complete, total] = await Promise.all([
    rows<GroupedRow>(
      em,
      sql`SELECT ${grouping} AS grp, ${valueExpr} AS value, ARRAY[${sql.join(counts, sql`, `)}] AS counts
        FROM ${from} WHERE ${base} AND ${prune(q)}
        GROUP BY GROUPING SETS (${sql.join(sets, sql`, `)})`,
    ),
    rows<{ value: string; count: number }>(
      em,
      sql`SELECT pc.channel AS value, count(*)::integer AS count
        FROM ${catalogueFrom(ctx)} JOIN product_completeness pc ON pc.product_id = p.id AND pc.score = 100
        WHERE ${base} AND ${othersThan(q, 'complete_for')}
        GROUP BY pc.channel`,
    ),
    rows<{ total: number }>(
      em,
      sql`SELECT count(*)::integer AS total FROM ${catalogueFrom(ctx)} WHERE ${whereAll(q)}`,
    ),
  ]);

  const facets = Object.fromEntries(
    FACET_NAMES.map((n) => [n, [] as { value: string; count: number }[]]),
  ) as Record<FacetName, { value: string; count: number }[]>;
  const n = GROUPED_NAMES.length;
  for (const row of grouped) {
    // GROUPING() sets a bit for every column NOT in the row's set; the set's own bit is clear.
    const index = GROUPED_NAMES.findIndex((_, i) => (row.grp & (1 << (n - 1 - i))) === 0);
    const name = GROUPED_NAMES[index];
    const count = row.counts[index] ?? 0;
    if (name === undefined || row.value === null || count === 0) continue;
    facets[name].push({ value: row.value, count });
  }
  facets.complete_for = complete.filter((r) => r.count > 0);
  for (const name of FACET_NAMES) {
    if (name === 'price_band')
      facets[name].sort((a, b) => Number.parseInt(a.value, 10) - Number.parseInt(b.value, 10));
    else facets[name].sort((a, b) => b.count - a.count || a.value.localeCompare(b.value));
  }
  return { facets, total_count: total[0]?.total ?? 0, ...(q.ownership ? { ownership: q.ownership } : {}) };
}
