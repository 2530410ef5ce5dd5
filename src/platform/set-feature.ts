import { PlatformFeature } from '../db/entities/platform.ts';
import type { UseCaseContext } from '../trpc/context.ts';
import type { SetFeatureInput } from './schemas.ts';

export async function setFeature(ctx: UseCaseContext, { feature, enabled }: SetFeatureInput) {
  await ctx.em.upsert(PlatformFeature, { name: feature, enabled, updatedAt: new Date() });
  return { feature, enabled };
}
