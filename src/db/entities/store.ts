import { defineEntity, p } from '@mikro-orm/core';

export const Store = defineEntity({
  name: 'Store',
  tableName: 'stores',
  checks: [
    {
      name: 'stores_min_margin_bps_check',
      expression: '(min_margin_bps >= 0) AND (min_margin_bps <= 100000)',
    },
    {
      name: 'stores_name_check',
      expression: '(length(name) >= 1) AND (length(name) <= 200)',
    },
  ],
  properties: {
    id: p.integer().primary().autoincrement().generated('by default as identity'),
    name: p.text(),
    slug: p.text().unique('stores_slug_key'),
    currency: p.character().length(3).default('AUD'),
    ownerEmail: p.text().nullable(),
    catalogueScope: p.enum(['all', 'store']).default('all'),
    minMarginBps: p.integer().default(0),
    createdAt: p.datetime().defaultRaw(`now()`),
    updatedAt: p.datetime().defaultRaw(`now()`),
    publishedAt: p.datetime().nullable(),
  },
});

export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p.integer().primary().autoincrement().generated('by default as identity'),
    store: () => p.manyToOne(Store).updateRule('no action').deleteRule('cascade').index('api_keys_store_idx'),
    name: p.text().default(''),
    tokenHash: p.text().unique('api_keys_token_hash_key'),
    tokenPrefix: p.text(),
    mode: p.enum(['live', 'test']),
    scope: p.enum(['read', 'read_write']),
    createdAt: p.datetime().defaultRaw(`now()`),
    lastUsedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
  },
});
