/**
 * The sales channels the readiness pass scores. Each has a bit in `products.complete_channels`,
 * set when the product scores 100% for it, so filters and facets test a column of the covering index
 * instead of joining the per-channel scores.
 */
export const CHANNELS = ['storefront', 'google', 'meta', 'freight'] as const;
export type Channel = (typeof CHANNELS)[number];

export function channelBit(name: string): number | undefined {
  const i = (CHANNELS as readonly string[]).indexOf(name);
  return i < 0 ? undefined : 1 << i;
}
