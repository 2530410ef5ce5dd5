import { defineEntity, p } from '@mikro-orm/core';
import { Store } from './store.ts';

export const StoreDepartment = defineEntity({
  name: 'StoreDepartment',
  tableName: 'store_departments',
  primaryKeys: ['store', 'category'],
  properties: {
    store: () => p.manyToOne(Store).primary().updateRule('no action'),
    category: () => p.manyToOne(Category).primary().updateRule('no action'),
  },
});

export const StoreMaker = defineEntity({
  name: 'StoreMaker',
  tableName: 'store_makers',
  primaryKeys: ['store', 'supplier'],
  properties: {
    store: () => p.manyToOne(Store).primary().updateRule('no action'),
    supplier: () => p.manyToOne(Supplier).primary().updateRule('no action'),
  },
});

export const StoreType = defineEntity({
  name: 'StoreType',
  tableName: 'store_types',
  properties: {
    id: p.integer().primary().autoincrement().generated('by default as identity'),
    slug: p.text().unique('store_types_slug_key'),
    name: p.text(),
  },
});

export const Category = defineEntity({
  name: 'Category',
  tableName: 'categories',
  indexes: [
    {
      name: 'categories_lower_name_idx',
      expression: 'CREATE INDEX categories_lower_name_idx ON public.categories USING btree (lower(name))',
    },
  ],
  properties: {
    id: p.integer().primary().autoincrement().generated('by default as identity'),
    slug: p.text().unique('categories_slug_key'),
    name: p.text(),
    parent: () => p.manyToOne(Category).updateRule('no action').deleteRule('no action').nullable(),
    storeType: () => p.manyToOne(StoreType).updateRule('no action').deleteRule('no action').nullable(),
  },
});

export const Brand = defineEntity({
  name: 'Brand',
  tableName: 'brands',
  indexes: [
    {
      name: 'brands_lower_name_idx',
      expression: 'CREATE INDEX brands_lower_name_idx ON public.brands USING btree (lower(name))',
    },
  ],
  properties: {
    id: p.integer().primary().autoincrement().generated('by default as identity'),
    name: p.text().unique('brands_name_key'),
    slug: p.text().unique('brands_slug_key'),
  },
});

export const Supplier = defineEntity({
  name: 'Supplier',
  tableName: 'suppliers',
  indexes: [
    {
      name: 'suppliers_owner_idx',
      where: 'owner_store_id IS NOT NULL',
      properties: ['ownerStore'],
    },
  ],
  properties: {
    id: p.integer().primary().autoincrement().generated('by default as identity'),
    name: p.text(),
    ownerStore: () => p.manyToOne(Store).updateRule('no action').deleteRule('cascade').nullable(),
    createdAt: p.datetime().defaultRaw(`now()`),
  },
});

/**
 * What every sort index of the catalogue carries besides its key: the filter and facet columns, so a
 * page is chosen from the index alone (Migration20261125030000_covering_sort_indexes).
 */
const SORT_COVER = [
  'active',
  'ownerStore',
  'stockQuantity',
  'pricingType',
  'purchaseMode',
  'readyToList',
  'brand',
  'category',
  'supplier',
  'completeChannels',
  'retailPriceCents',
] as const;

/** The columns the facet counts read, carried by the indexes a facet statement reads through. */
const FACT_COVER = [
  'active',
  'ownerStore',
  'id',
  'brand',
  'category',
  'supplier',
  'stockQuantity',
  'retailPriceCents',
  'pricingType',
  'purchaseMode',
  'readyToList',
  'completeChannels',
  'createdAt',
] as const;
/** The sort keys (and the margin's operands) a page read through a filter's index sorts by (Migration20261128110000_sort_key_covers). */
const SORT_KEY_COVER = [
  'wholesalePriceCents',
  'updatedAt',
  'readinessScore',
  'recommendedScore',
  'commissionRateBps',
] as const;
const coverBut = (key: (typeof FACT_COVER)[number]) => [
  ...FACT_COVER.filter((c) => c !== key),
  ...SORT_KEY_COVER,
];

export const Product = defineEntity({
  name: 'Product',
  tableName: 'products',
  indexes: [
    {
      // A raw category's facets and list total, index-only (Migration20261128020000_raw_category_cover).
      name: 'products_category_raw_idx',
      expression:
        'CREATE INDEX products_category_raw_idx ON public.products USING btree (lower(category_raw)) INCLUDE (category_raw, active, owner_store_id, id, brand_id, category_id, supplier_id, stock_quantity, retail_price_cents, pricing_type, purchase_mode, ready_to_list, complete_channels, created_at, wholesale_price_cents, updated_at, readiness_score, recommended_score, commission_rate_bps)',
      include: ['categoryRaw', ...FACT_COVER, ...SORT_KEY_COVER],
    },
    // The facets read through a brand, supplier or category (Migration20261128040000_taxonomy_covers).
    {
      name: 'products_brand_idx',
      properties: ['brand'],
      include: coverBut('brand'),
    },
    {
      name: 'products_supplier_idx',
      properties: ['supplier'],
      include: coverBut('supplier'),
    },
    {
      name: 'products_category_idx',
      properties: ['category'],
      include: coverBut('category'),
    },
    {
      name: 'products_created_idx',
      properties: ['createdAt', 'id'],
      include: [...SORT_COVER],
    },
    {
      name: 'products_facts_idx',
      properties: ['active', 'ownerStore'],
      include: [
        'id',
        'category',
        'brand',
        'supplier',
        'stockQuantity',
        'retailPriceCents',
        'wholesalePriceCents',
        'pricingType',
        'purchaseMode',
        'readyToList',
        'completeChannels',
      ],
    },
    {
      name: 'products_margin_idx',
      expression: `CREATE INDEX products_margin_idx ON public.products USING btree (((
CASE pricing_type
    WHEN 'commission'::text THEN ((((retail_price_cents)::bigint * commission_rate_bps) + 5000) / 10000)
    ELSE ((retail_price_cents - wholesale_price_cents))::bigint
END)::integer), id) INCLUDE (active, owner_store_id, stock_quantity, pricing_type, purchase_mode, ready_to_list, brand_id, category_id, supplier_id, complete_channels, retail_price_cents, wholesale_price_cents, commission_rate_bps)`,
      include: [...SORT_COVER, 'wholesalePriceCents', 'commissionRateBps'],
    },
    {
      name: 'products_name_idx',
      properties: ['name', 'id'],
      include: [...SORT_COVER],
    },
    { name: 'products_name_trgm_idx', properties: ['name'], type: 'gin' },
    {
      name: 'products_owner_idx',
      where: 'owner_store_id IS NOT NULL',
      properties: ['ownerStore'],
    },
    {
      name: 'products_readiness_idx',
      properties: ['readinessScore', 'id'],
      include: [...SORT_COVER],
    },
    {
      name: 'products_recommended_idx',
      properties: ['recommendedScore', 'id'],
      include: [...SORT_COVER],
    },
    {
      name: 'products_retail_idx',
      properties: ['id'],
      include: [...SORT_COVER, 'createdAt', ...SORT_KEY_COVER],
    },
    { name: 'products_search_idx', properties: ['searchVector'], type: 'gin' },
    {
      name: 'products_sku_sort_idx',
      properties: ['sku', 'id'],
      include: [...SORT_COVER],
    },
    { name: 'products_sku_trgm_idx', properties: ['sku'], type: 'gin' },
    {
      name: 'products_stock_idx',
      properties: ['id'],
      include: [...SORT_COVER, 'createdAt', ...SORT_KEY_COVER],
    },
    {
      name: 'products_updated_idx',
      properties: ['updatedAt', 'id'],
      include: [...SORT_COVER],
    },
    {
      name: 'products_wholesale_idx',
      properties: ['wholesalePriceCents', 'id'],
      include: [...SORT_COVER],
    },
  ],
  checks: [
    {
      name: 'products_commission_rate_bps_check',
      expression: '(commission_rate_bps >= 0) AND (commission_rate_bps <= 10000)',
    },
    { name: 'products_depth_cm_check', expression: 'depth_cm >= 0' },
    { name: 'products_height_cm_check', expression: 'height_cm >= 0' },
    {
      name: 'products_readiness_score_check',
      expression: '(readiness_score >= 0) AND (readiness_score <= 100)',
    },
    {
      name: 'products_retail_price_cents_check',
      expression: 'retail_price_cents >= 0',
    },
    { name: 'products_stock_quantity_check', expression: 'stock_quantity >= 0' },
    { name: 'products_weight_oz_check', expression: 'weight_oz >= 0' },
    {
      name: 'products_wholesale_price_cents_check',
      expression: 'wholesale_price_cents >= 0',
    },
    { name: 'products_width_cm_check', expression: 'width_cm >= 0' },
  ],
  properties: {
    id: p.integer().primary().autoincrement().generated('by default as identity'),
    supplier: () => p.manyToOne(Supplier).updateRule('no action').deleteRule('no action'),
    ownerStore: () => p.manyToOne(Store).updateRule('no action').deleteRule('cascade').nullable(),
    brand: () => p.manyToOne(Brand).updateRule('no action').deleteRule('no action').nullable(),
    category: () => p.manyToOne(Category).updateRule('no action').deleteRule('no action').nullable(),
    categoryRaw: p.text().nullable(),
    name: p.text(),
    description: p.text().default(''),
    sku: p.text().unique('products_sku_key'),
    wholesalePriceCents: p.integer(),
    retailPriceCents: p.integer(),
    pricingType: p.enum(['wholesale', 'commission']).default('wholesale'),
    commissionRateBps: p.integer().default(0),
    purchaseMode: p.enum(['buy_now', 'enquiry']).default('buy_now'),
    active: p.boolean().default(true),
    imageUrl: p.text().nullable(),
    weightOz: p.decimal().precision(10).scale(2).nullable(),
    widthCm: p.decimal().precision(10).scale(1).nullable(),
    depthCm: p.decimal().precision(10).scale(1).nullable(),
    heightCm: p.decimal().precision(10).scale(1).nullable(),
    stockQuantity: p.integer().default(0),
    readyToList: p.boolean().default(false),
    readinessScore: p.smallint().default(0),
    readinessCheckedAt: p.datetime().nullable(),
    recommendedScore: p.integer().default(0),
    completeChannels: p.smallint().default(0),
    searchVector: p
      .string()
      .columnType('tsvector')
      .generated(
        "((setweight(to_tsvector('english'::regconfig, name), 'A'::\"char\") || setweight(to_tsvector('simple'::regconfig, sku), 'A'::\"char\")) || setweight(to_tsvector('english'::regconfig, description), 'C'::\"char\")) stored",
      )
      .nullable(),
    createdAt: p.datetime().defaultRaw(`now()`),
    updatedAt: p.datetime().defaultRaw(`now()`),
    withdrawnAt: p.datetime().nullable(),
    hiddenChannels: p.array().defaultRaw(`'{}'::text[]`),
  },
});

export const ProductVariant = defineEntity({
  name: 'ProductVariant',
  tableName: 'product_variants',
  indexes: [
    {
      name: 'product_variants_product_idx',
      expression:
        'CREATE INDEX product_variants_product_idx ON public.product_variants USING btree (product_id, "position")',
      properties: ['product', 'position'],
    },
  ],
  checks: [
    {
      name: 'product_variants_retail_price_cents_check',
      expression: 'retail_price_cents >= 0',
    },
    {
      name: 'product_variants_retired_empty',
      expression: '(retired_at IS NULL) OR (stock_quantity = 0)',
    },
    {
      name: 'product_variants_stock_quantity_check',
      expression: 'stock_quantity >= 0',
    },
    {
      name: 'product_variants_wholesale_price_cents_check',
      expression: 'wholesale_price_cents >= 0',
    },
    {
      name: 'product_variants_previous_wholesale_price_cents_check',
      expression: 'previous_wholesale_price_cents >= 0',
    },
  ],
  properties: {
    id: p.integer().primary().autoincrement().generated('by default as identity'),
    product: () => p.manyToOne(Product).updateRule('no action').deleteRule('cascade'),
    sku: p.text().unique('product_variants_sku_key'),
    title: p.text(),
    optionValues: p.json().defaultRaw(`'{}'::jsonb`),
    wholesalePriceCents: p.integer(),
    retailPriceCents: p.integer(),
    stockQuantity: p.integer().default(0),
    position: p.integer().default(0),
    previousWholesalePriceCents: p.integer().nullable(),
    wholesalePriceChangedAt: p.datetime().nullable(),
    retiredAt: p.datetime().nullable(),
  },
});

export const ProductOption = defineEntity({
  name: 'ProductOption',
  tableName: 'product_options',
  indexes: [
    {
      name: 'product_options_product_idx',
      expression:
        'CREATE INDEX product_options_product_idx ON public.product_options USING btree (product_id, "position")',
      properties: ['product', 'position'],
    },
  ],
  properties: {
    id: p.integer().primary().autoincrement().generated('by default as identity'),
    product: () => p.manyToOne(Product).updateRule('no action').deleteRule('cascade'),
    name: p.text(),
    values: p.array().defaultRaw(`'{}'::text[]`),
    position: p.integer().default(0),
  },
});

export const ProductImage = defineEntity({
  name: 'ProductImage',
  tableName: 'product_images',
  indexes: [
    {
      name: 'product_images_product_idx',
      expression:
        'CREATE INDEX product_images_product_idx ON public.product_images USING btree (product_id, "position")',
      properties: ['product', 'position'],
    },
  ],
  properties: {
    id: p.integer().primary().autoincrement().generated('by default as identity'),
    product: () => p.manyToOne(Product).updateRule('no action').deleteRule('cascade'),
    url: p.text(),
    alt: p.text().default(''),
    position: p.integer().default(0),
  },
});

export const ProductDrawing = defineEntity({
  name: 'ProductDrawing',
  tableName: 'product_drawings',
  indexes: [
    {
      name: 'product_drawings_product_idx',
      expression:
        'CREATE INDEX product_drawings_product_idx ON public.product_drawings USING btree (product_id, "position")',
      properties: ['product', 'position'],
    },
  ],
  properties: {
    id: p.integer().primary().autoincrement().generated('by default as identity'),
    product: () => p.manyToOne(Product).updateRule('no action').deleteRule('cascade'),
    url: p.text(),
    title: p.text().default(''),
    position: p.integer().default(0),
  },
});

export const ProductCompleteness = defineEntity({
  name: 'ProductCompleteness',
  tableName: 'product_completeness',
  primaryKeys: ['product', 'channel'],
  indexes: [
    {
      name: 'product_completeness_full_idx',
      where: 'score = 100',
      properties: ['channel', 'product'],
    },
  ],
  checks: [
    {
      name: 'product_completeness_channel_check',
      expression: "channel ~ '^[a-z][a-z0-9_]{0,31}$'::text",
    },
    {
      name: 'product_completeness_score_check',
      expression: '(score >= 0) AND (score <= 100)',
    },
  ],
  properties: {
    product: () => p.manyToOne(Product).primary().updateRule('no action').deleteRule('cascade'),
    channel: p.text().primary(),
    score: p.smallint(),
    computedAt: p.datetime().defaultRaw(`now()`),
  },
});

/**
 * A product's lexeme at its recommended score: a search's matches in the static order
 * (Migration20261128030000_search_terms). Written only by triggers on products.
 */
export const ProductSearchTerm = defineEntity({
  name: 'ProductSearchTerm',
  tableName: 'product_search_terms',
  properties: {
    lexeme: p.text().primary(),
    score: p.integer().primary(),
    productId: p.integer().primary(),
  },
});
