import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

export const Store = defineEntity({
  name: 'Store',
  tableName: 'stores',
  properties: {
    id: p.integer().primary(),
    name: p.string(),
    slug: p.string().unique(),
    currency: p.string().length(3).default('AUD'),
    ownerEmail: p.string().nullable(),
    catalogueScope: p.enum(['all', 'store'] as const).default('all'),
    minMarginBps: p.integer().default(0),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type IStore = InferEntity<typeof Store>;

export const StoreDepartment = defineEntity({
  name: 'StoreDepartment',
  tableName: 'store_departments',
  properties: {
    storeId: p.integer().primary(),
    categoryId: p.integer().primary(),
  },
});

export const StoreMaker = defineEntity({
  name: 'StoreMaker',
  tableName: 'store_makers',
  properties: {
    storeId: p.integer().primary(),
    supplierId: p.integer().primary(),
  },
});

/** A store's API key: its credentials belong to it (the plain key is shown once; only the hash is kept). */
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
