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
