import { defineEntity, p } from '@mikro-orm/core';
import { Product } from './catalogue.ts';
import { Store } from './store.ts';

export const InventoryFeedEntry = defineEntity({
  name: 'InventoryFeedEntry',
  tableName: 'inventory_feed',
  primaryKeys: ['store', 'product'],
  indexes: [{ name: 'inventory_feed_position_idx', properties: ['store', 'xid', 'seq'] }],
  properties: {
    store: () => p.manyToOne(Store).primary().updateRule('no action'),
    product: () => p.manyToOne(Product).primary().updateRule('no action'),
    xid: p.unknown().columnType('xid8').defaultRaw(`pg_current_xact_id()`),
    seq: p.bigint().autoincrement(),
  },
});

/**
 * A product's stock change waiting for its `inventory_fanout` job: the one variant every waiting
 * change touched, or null (Migration20261128050000_inventory_fanout_pending). Written by the stock
 * trigger, taken by the job.
 */
export const InventoryFanoutPending = defineEntity({
  name: 'InventoryFanoutPending',
  tableName: 'inventory_fanout_pending',
  properties: {
    productId: p.integer().primary().autoincrement(false),
    variantId: p.integer().nullable(),
    version: p.integer().default(0),
  },
});
