import { ApiKey } from '../db/entities/store.ts';
import { notFound } from '../errors.ts';
import type { UseCaseContext } from '../trpc/context.ts';
import type { RevokeApiKeyInput } from './schemas.ts';

export async function revokeApiKey(ctx: UseCaseContext, { id }: RevokeApiKeyInput) {
  const n = await ctx.em.nativeUpdate(ApiKey, { id, revokedAt: null }, { revokedAt: new Date() });
  if (n === 0) throw notFound(`No active API key with id ${id}`, 'KEY_NOT_FOUND');
  return { id, revoked: true };
}
