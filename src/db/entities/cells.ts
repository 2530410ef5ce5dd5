import { defineEntity, p } from '@mikro-orm/core';

/** A cell's dimensions, in the order of its key. */
const CELL_DIMS = [
  'ownerStoreId',
  'brandId',
  'categoryId',
  'supplierId',
  'pricingType',
  'purchaseMode',
  'inStock',
  'readyToList',
  'priceBand',
  'completeChannels',
] as const;

/**
 * A facet count cell. Its identity is its unique key (NULLS NOT DISTINCT), which PostgreSQL cannot make a
 * primary key because the columns are nullable; MikroORM needs a primary key, so the key columns are
 * declared primary here. The schema diff leaves the table as migrated (test/runtime/schema.test.ts).
 */
export const FacetCell = defineEntity({
  name: 'FacetCell',
  tableName: 'facet_cells',
  indexes: [
    { name: 'facet_cells_empty_idx', where: 'n = 0', properties: ['grain'] },
    // A partial band reads its slices' cells alone (Migration20261128120000_price_slices).
    {
      name: 'facet_cells_slice_idx',
      properties: ['grain', 'priceBand'],
      include: [...CELL_DIMS.filter((d) => d !== 'priceBand'), 'n'],
      where: 'grain >= 1024',
    },
  ],
  uniques: [
    {
      name: 'facet_cells_key',
      properties: ['grain', ...CELL_DIMS],
      include: ['n'],
    },
  ],
  properties: {
    grain: p.smallint().primary(),
    ownerStoreId: p.integer().primary().nullable(),
    brandId: p.integer().primary().nullable(),
    categoryId: p.integer().primary().nullable(),
    supplierId: p.integer().primary().nullable(),
    pricingType: p.text().primary().nullable(),
    purchaseMode: p.text().primary().nullable(),
    inStock: p.boolean().primary().nullable(),
    readyToList: p.boolean().primary().nullable(),
    // The price band, or at the slice grains (grain >= 1024) the slice: src/catalogue/cells.ts.
    priceBand: p.smallint().primary().nullable(),
    completeChannels: p.smallint().primary().nullable(),
    n: p.integer(),
  },
});

export const FacetCellDelta = defineEntity({
  name: 'FacetCellDelta',
  tableName: 'facet_cell_deltas',
  properties: {
    id: p.bigint().primary().autoincrement().generated('identity'),
    ownerStoreId: p.integer().nullable(),
    brandId: p.integer().nullable(),
    categoryId: p.integer().nullable(),
    supplierId: p.integer(),
    pricingType: p.text(),
    purchaseMode: p.text(),
    inStock: p.boolean(),
    readyToList: p.boolean(),
    priceBand: p.smallint(),
    completeChannels: p.smallint(),
    n: p.integer(),
  },
});

/**
 * A store's facet count cell. Its identity is its unique key (NULLS NOT DISTINCT), which PostgreSQL cannot make a
 * primary key because the columns are nullable; MikroORM needs a primary key, so the key columns are
 * declared primary here. The schema diff leaves the table as migrated (test/runtime/schema.test.ts).
 */
export const StoreCell = defineEntity({
  name: 'StoreCell',
  tableName: 'store_cells',
  indexes: [{ name: 'store_cells_empty_idx', where: 'n = 0', properties: ['storeId'] }],
  uniques: [
    {
      name: 'store_cells_key',
      properties: ['storeId', 'kind', 'grain', ...CELL_DIMS],
      include: ['n'],
    },
  ],
  properties: {
    storeId: p.integer().primary(),
    kind: p.smallint().primary(),
    grain: p.smallint().primary(),
    ownerStoreId: p.integer().primary().nullable(),
    brandId: p.integer().primary().nullable(),
    categoryId: p.integer().primary().nullable(),
    supplierId: p.integer().primary().nullable(),
    pricingType: p.text().primary().nullable(),
    purchaseMode: p.text().primary().nullable(),
    inStock: p.boolean().primary().nullable(),
    readyToList: p.boolean().primary().nullable(),
    priceBand: p.smallint().primary().nullable(),
    completeChannels: p.smallint().primary().nullable(),
    n: p.integer(),
  },
});

export const StoreCellDelta = defineEntity({
  name: 'StoreCellDelta',
  tableName: 'store_cell_deltas',
  indexes: [{ name: 'store_cell_deltas_store_idx', properties: ['storeId', 'kind'] }],
  properties: {
    id: p.bigint().primary().autoincrement().generated('identity'),
    storeId: p.integer(),
    kind: p.smallint(),
    ownerStoreId: p.integer().nullable(),
    brandId: p.integer().nullable(),
    categoryId: p.integer().nullable(),
    supplierId: p.integer(),
    pricingType: p.text(),
    purchaseMode: p.text(),
    inStock: p.boolean(),
    readyToList: p.boolean(),
    priceBand: p.smallint(),
    completeChannels: p.smallint(),
    n: p.integer(),
  },
});
