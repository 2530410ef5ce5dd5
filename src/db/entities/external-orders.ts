import { defineEntity, p } from '@mikro-orm/core';
import { Product, ProductVariant } from './catalogue.ts';
import { Order } from './orders.ts';
import { Store } from './store.ts';

export const ExternalOrder = defineEntity({
  name: 'ExternalOrder',
  tableName: 'external_orders',
  indexes: [
    {
      name: 'external_orders_held_idx',
      where: "status = 'held'::text",
      properties: ['store'],
    },
  ],
  uniques: [
    {
      name: 'external_orders_natural_key',
      properties: ['store', 'livemode', 'marketplace', 'externalOrderId'],
    },
  ],
  properties: {
    id: p.integer().primary().autoincrement().generated('identity'),
    store: () => p.manyToOne(Store).updateRule('no action').deleteRule('cascade'),
    marketplace: p.text(),
    externalOrderId: p.text(),
    status: p.enum(['pending', 'created', 'held']),
    order: () => p.manyToOne(Order).updateRule('no action').deleteRule('no action').nullable(),
    holdReason: p.text().nullable(),
    holdLines: p.json().nullable(),
    payload: p.json(),
    credential: p.text().nullable(),
    livemode: p.boolean().default(true),
    createdAt: p.datetime().defaultRaw(`now()`),
    updatedAt: p.datetime().defaultRaw(`now()`),
  },
});

export const SkuMapping = defineEntity({
  name: 'SkuMapping',
  tableName: 'sku_mappings',
  primaryKeys: ['store', 'sku'],
  properties: {
    store: () => p.manyToOne(Store).primary().updateRule('no action').deleteRule('cascade'),
    sku: p.text().primary(),
    product: () => p.manyToOne(Product).updateRule('no action').deleteRule('cascade'),
    variant: () => p.manyToOne(ProductVariant).updateRule('no action').deleteRule('cascade'),
    createdAt: p.datetime().defaultRaw(`now()`),
  },
});
