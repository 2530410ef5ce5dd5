import { displayPrefix, generateApiKey } from '../auth/api-keys.ts';
import { hashToken } from '../auth/secret-tokens.ts';
import { ApiKey, Store } from '../db/entities/store.ts';
import { notFound } from '../errors.ts';
import type { UseCaseContext } from '../trpc/context.ts';
import type { CreateApiKeyInput } from './schemas.ts';

/**
 * Creates an API key. The plain key is returned here once; only its hash is stored. Only the
 * EntityManager is needed: the demo seed, the tests and the benchmarks issue keys before any
 * request settings exist.
 */
export async function createApiKey(ctx: Pick<UseCaseContext, 'em'>, input: CreateApiKeyInput) {
  return ctx.em.transactional(async (tx) => {
    const store = await tx.findOne(Store, input.storeId);
    if (!store) throw notFound(`No store with id ${input.storeId}`, 'STORE_NOT_FOUND');
    const key = generateApiKey(input.mode);
    const row = tx.create(ApiKey, {
      store,
      name: input.name ?? '',
      tokenHash: hashToken(key),
      tokenPrefix: displayPrefix(key),
      mode: input.mode,
      scope: input.scope,
    });
    await tx.flush();
    return { id: row.id, store_id: store.id, scope: row.scope, mode: row.mode, prefix: row.tokenPrefix, key };
  });
}
