import { type RawBuilder, sql } from '../db/sql.ts';
import { EARN_PER_SALE } from './filters.ts';
import type { ListInput, SortKey } from './schemas.ts';

const SORT_COLUMNS: Record<SortKey, RawBuilder<unknown>> = {
  name: sql`p.name`,
  created_at: sql`p.created_at`,
  updated_at: sql`p.updated_at`,
  stock_quantity: sql`p.stock_quantity`,
  retail_price_cents: sql`p.retail_price_cents`,
  wholesale_price_cents: sql`p.wholesale_price_cents`,
  sku: sql`p.sku`,
  margin: EARN_PER_SALE,
  readiness: sql`p.readiness_score`,
  recommended: sql`p.recommended_score`,
};
/** Text keys read naturally A→Z; every numeric or time key reads best largest/newest first. */
const ASCENDING_BY_DEFAULT = new Set<SortKey>(['name', 'sku']);

/** The column (or expression) a list is sorted by. */
export const sortColumn = (input: ListInput): RawBuilder<unknown> =>
  SORT_COLUMNS[input.sort_by ?? 'created_at'];

export function orderBy(input: ListInput): RawBuilder<unknown> {
  return sortBy(sortColumn(input), direction(input));
}

export function direction(input: ListInput): 'asc' | 'desc' {
  const key = input.sort_by ?? 'created_at';
  return input.order ?? (ASCENDING_BY_DEFAULT.has(key) ? 'asc' : 'desc');
}

/** The id tie-breaker keeps pages stable when many products share a sort value. */
export function sortBy(
  column: RawBuilder<unknown>,
  dir: 'asc' | 'desc',
  id: RawBuilder<unknown> = sql`p.id`,
): RawBuilder<unknown> {
  return dir === 'asc' ? sql`${column} ASC, ${id} ASC` : sql`${column} DESC, ${id} DESC`;
}
