import { defineEntity, p } from '@mikro-orm/core';
import { Product } from './catalogue.ts';
import { Store } from './store.ts';

export const Listing = defineEntity({
  name: 'Listing',
  tableName: 'listings',
  indexes: [
    {
      name: 'listings_store_custom_idx',
      where:
        '(deleted_at IS NULL) AND ((custom_retail_price_cents IS NOT NULL) OR (purchase_mode IS NOT NULL))',
      properties: ['store', 'product'],
    },
    {
      name: 'listings_store_custom_price_idx',
      where: '(deleted_at IS NULL) AND (custom_retail_price_cents IS NOT NULL)',
      properties: ['store', 'customRetailPriceCents', 'product'],
    },
    {
      name: 'listings_store_mode_only_idx',
      where: '(deleted_at IS NULL) AND (custom_retail_price_cents IS NULL) AND (purchase_mode IS NOT NULL)',
      properties: ['store', 'product'],
    },
    {
      name: 'listings_store_earn_idx',
      where: '(deleted_at IS NULL) AND (custom_retail_price_cents IS NOT NULL)',
      properties: ['store', 'customEarnCents', 'product'],
    },
    {
      name: 'listings_store_no_weight_idx',
      where: '(deleted_at IS NULL) AND ((shipping_gaps & 1) <> 0)',
      properties: ['store', 'createdAt', 'id'],
      columns: [{ name: 'store_id' }, { name: 'created_at', sort: 'DESC' }, { name: 'id' }],
    },
    {
      name: 'listings_store_no_dimensions_idx',
      where: '(deleted_at IS NULL) AND ((shipping_gaps & 2) <> 0)',
      properties: ['store', 'createdAt', 'id'],
      columns: [{ name: 'store_id' }, { name: 'created_at', sort: 'DESC' }, { name: 'id' }],
    },
    {
      name: 'listings_store_shipping_gaps_idx',
      where: '(deleted_at IS NULL) AND (shipping_gaps <> 0)',
      properties: ['store', 'createdAt', 'id'],
      columns: [{ name: 'store_id' }, { name: 'created_at', sort: 'DESC' }, { name: 'id' }],
    },
    {
      name: 'listings_store_live_idx',
      where: 'deleted_at IS NULL',
      properties: ['store', 'createdAt', 'id'],
      columns: [{ name: 'store_id' }, { name: 'created_at', sort: 'DESC' }, { name: 'id' }],
    },
  ],
  uniques: [{ name: 'listings_store_id_product_id_key', properties: ['store', 'product'] }],
  checks: [
    {
      name: 'listings_custom_retail_price_cents_check',
      expression: 'custom_retail_price_cents >= 0',
    },
    {
      name: 'listings_custom_title_check',
      expression: '(length(custom_title) >= 1) AND (length(custom_title) <= 200)',
    },
  ],
  properties: {
    id: p.integer().primary().autoincrement().generated('by default as identity'),
    store: () => p.manyToOne(Store).updateRule('no action').deleteRule('cascade'),
    product: () =>
      p.manyToOne(Product).updateRule('no action').deleteRule('cascade').index('listings_product_idx'),
    customRetailPriceCents: p.integer().nullable(),
    purchaseMode: p.enum(['buy_now', 'enquiry']).nullable(),
    vendorFulfilled: p.boolean().default(false),
    deletedAt: p.datetime().nullable(),
    createdAt: p.datetime().defaultRaw(`now()`),
    updatedAt: p.datetime().defaultRaw(`now()`),
    customEarnCents: p.integer().nullable(),
    customTitle: p.text().nullable(),
    hiddenChannels: p.array().defaultRaw(`'{}'::text[]`),
    // What the product lacks for shipping, kept by triggers (Migration20261129000000_listing_shipping_gaps):
    // 1 no weight, 2 a dimension missing.
    shippingGaps: p.smallint().default(0),
  },
});
