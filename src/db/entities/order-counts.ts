import { defineEntity, p } from '@mikro-orm/core';

/** A store's orders in one mode, status, channel and attention state (Migration20261128090000_order_counts). */
export const OrderCount = defineEntity({
  name: 'OrderCount',
  tableName: 'order_counts',
  properties: {
    storeId: p.integer().primary(),
    livemode: p.boolean().primary(),
    status: p.text().primary(),
    channel: p.text().primary(),
    needsAttention: p.boolean().primary(),
    n: p.integer(),
  },
});

/** A change to OrderCount not folded in yet. */
export const OrderCountDelta = defineEntity({
  name: 'OrderCountDelta',
  tableName: 'order_count_deltas',
  indexes: [{ name: 'order_count_deltas_store_idx', properties: ['storeId', 'livemode'] }],
  properties: {
    id: p.bigint().primary().autoincrement().generated('identity'),
    storeId: p.integer(),
    livemode: p.boolean(),
    status: p.text(),
    channel: p.text(),
    needsAttention: p.boolean(),
    n: p.integer(),
  },
});
