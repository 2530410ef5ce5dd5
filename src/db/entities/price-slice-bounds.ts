import { defineEntity, p } from '@mikro-orm/core';

/**
 * The spread of wholesale prices and catalogue earn per sale among the products whose retail price
 * lies in a price slice, only ever widened (Migration20261129010000_price_slice_bounds).
 */
export const PriceSliceBound = defineEntity({
  name: 'PriceSliceBound',
  tableName: 'price_slice_bounds',
  properties: {
    slice: p.smallint().primary().autoincrement(false),
    wholesaleMin: p.integer(),
    wholesaleMax: p.integer(),
    earnMin: p.integer(),
    earnMax: p.integer(),
  },
});
