import type { IdsOnlyEventData } from './vocabulary/index.ts';

/**
 * The spec's rule for coalesced, ids-only events: `variant_id` only when every change behind the
 * event touched the same single variant. A change given as null touched the product as a whole.
 */
export function onlyVariant(changes: Iterable<readonly number[] | null>): number | null {
  const variants = new Set<number>();
  for (const change of changes) {
    if (change === null) return null;
    for (const v of change) variants.add(Number(v));
  }
  const [only] = variants;
  return variants.size === 1 && only !== undefined ? only : null;
}

/** The `data` of an ids-only event. */
export function idsOnlyData(productId: number, variantId: number | null): IdsOnlyEventData {
  return variantId === null ? { product_id: productId } : { product_id: productId, variant_id: variantId };
}
