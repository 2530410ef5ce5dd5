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
