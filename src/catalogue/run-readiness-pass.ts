import type { UseCaseContext } from '../trpc/context.ts';
import { foldFacetCells } from './cells.ts';
import { scoreCatalogue } from './readiness-scores.ts';

/**
 * The nightly readiness pass: scores every product's completeness per channel, marks products ready
 * to list, and refreshes the recommendation score (readiness-scores.ts). It reads only the
 * EntityManager: the nightly job, which has no request settings, runs it as the operator does.
 */
export async function runReadinessPass(ctx: Pick<UseCaseContext, 'em'>) {
  const total = await scoreCatalogue(ctx.em);
  // Nightly housekeeping: whatever facet deltas writers left unfolded go into the cells.
  await foldFacetCells(ctx.em);
  return total;
}
