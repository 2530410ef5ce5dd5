import type { EntityManager } from '@mikro-orm/postgresql';
import type { StoreCatalogueContext } from '../store/catalogue-context.ts';
import { cellTotal } from './cells.ts';
import { isRawCategory, type Taxonomy } from './filters.ts';
import type { CatalogueFilters } from './schemas.ts';

/** The facet filters whose products an index of their own reads, with the columns the counts read. */
export const DRIVERS = ['brand', 'supplier_id', 'category'] as const;
export type Driver = (typeof DRIVERS)[number];

/**
 * The facet filter that bounds what a facet (or list) statement reads: a raw category value (no
 * cell holds it), else the given brand, supplier or taxonomy category with the fewest products (from
 * the cells, one lookup each). None when no such filter is given.
 */
export async function driverOf(
  em: EntityManager,
  ctx: StoreCatalogueContext,
  f: CatalogueFilters,
  taxonomy: Taxonomy | undefined,
): Promise<Driver | undefined> {
  return (await driverChoice(em, ctx, f, taxonomy))?.driver;
}

/** driverOf's choice, with its products' number (infinite for a raw category value: no cell holds it). */
export async function driverChoice(
  em: EntityManager,
  ctx: StoreCatalogueContext,
  f: CatalogueFilters,
  taxonomy: Taxonomy | undefined,
): Promise<{ driver: Driver; size: number } | undefined> {
  if (isRawCategory(f, taxonomy)) return { driver: 'category', size: Number.POSITIVE_INFINITY };
  const given = DRIVERS.filter((k) => f[k] !== undefined);
  const sizes = await Promise.all(given.map((k) => cellTotal(em, ctx, { [k]: f[k] }, taxonomy)));
  let best: { driver: Driver; size: number } | undefined;
  for (const [i, driver] of given.entries()) {
    const size = sizes[i] ?? Number.POSITIVE_INFINITY;
    if (!best || size < best.size) best = { driver, size };
  }
  return best;
}
