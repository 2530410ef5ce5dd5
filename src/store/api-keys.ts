import type { EntityManager } from '@mikro-orm/postgresql';
import { displayPrefix, generateApiKey } from '../auth/api-keys.ts';
import { hashToken } from '../auth/secret-tokens.ts';
import { ApiKey, Store } from '../db/entities/store.ts';
import { notFound } from '../errors.ts';

export interface CreateKeyInput {
  storeId: number;
  scope: 'read' | 'read_write';
  mode: 'live' | 'test';
  name?: string;
}

/** Creates an API key. The plain key is returned here once; only its hash is stored. */
export async function createApiKey(em: EntityManager, input: CreateKeyInput) {
  return em.transactional(async (tx) => {
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

export async function revokeApiKey(em: EntityManager, keyId: number) {
  const n = await em.nativeUpdate(ApiKey, { id: keyId, revokedAt: null }, { revokedAt: new Date() });
  if (n === 0) throw notFound(`No active API key with id ${keyId}`, 'KEY_NOT_FOUND');
  return { id: keyId, revoked: true };
}
