import { loadCatalogueContext } from '../store/catalogue-context.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { countFacets } from './facet-counts.ts';
import type { CatalogueFilters } from './schemas.ts';

/** The catalogue's facet counts under the filters, as the partner's store sees the catalogue. */
export async function getFacets(ctx: PartnerContext, input: CatalogueFilters) {
  return countFacets(ctx.em, await loadCatalogueContext(ctx.em, ctx.actor.storeId), input);
}
