import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { Store } from '../store/entities.ts';

export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p.integer().primary(),
    store: () => p.manyToOne(Store),
    name: p.string().default(''),
    tokenHash: p.string().unique(),
    tokenPrefix: p.string(),
    mode: p.enum(['live', 'test'] as const),
    scope: p.enum(['read', 'read_write'] as const),
    createdAt: p.datetime().onCreate(() => new Date()),
    lastUsedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
  },
});
export type IApiKey = InferEntity<typeof ApiKey>;
