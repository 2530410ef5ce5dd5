import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { Store } from '../store/entities.ts';

export const StoreType = defineEntity({
  name: 'StoreType',
  tableName: 'store_types',
  properties: {
    id: p.integer().primary(),
    slug: p.string().unique(),
    name: p.string(),
  },
});

export const Category = defineEntity({
  name: 'Category',
  tableName: 'categories',
  properties: {
    id: p.integer().primary(),
    slug: p.string().unique(),
    name: p.string(),
    parent: () => p.manyToOne(Category).nullable(),
    storeType: () => p.manyToOne(StoreType).nullable(),
  },
});

export const Brand = defineEntity({
  name: 'Brand',
  tableName: 'brands',
  properties: {
    id: p.integer().primary(),
    name: p.string().unique(),
    slug: p.string().unique(),
  },
});

/** A maker or wholesaler. One with an owner store is that store's own supplier (own goods). */
export const Supplier = defineEntity({
  name: 'Supplier',
  tableName: 'suppliers',
  properties: {
    id: p.integer().primary(),
    name: p.string(),
    ownerStore: () => p.manyToOne(Store).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export const Product = defineEntity({
  name: 'Product',
  tableName: 'products',
  properties: {
    id: p.integer().primary(),
    supplier: () => p.manyToOne(Supplier),
    // Maintained by a database trigger from the supplier; never written by the application.
    ownerStoreId: p.integer().nullable().persist(false),
    brand: () => p.manyToOne(Brand).nullable(),
    category: () => p.manyToOne(Category).nullable(),
    categoryRaw: p.string().nullable(),
    name: p.string(),
    description: p.text().default(''),
    sku: p.string().unique(),
    wholesalePriceCents: p.integer(),
    retailPriceCents: p.integer(),
    pricingType: p.enum(['wholesale', 'commission'] as const).default('wholesale'),
    commissionRateBps: p.integer().default(0),
    purchaseMode: p.enum(['buy_now', 'enquiry'] as const).default('buy_now'),
    active: p.boolean().default(true),
    imageUrl: p.string().nullable(),
    weightOz: p.decimal('number').nullable(),
    widthCm: p.decimal('number').nullable(),
    depthCm: p.decimal('number').nullable(),
    heightCm: p.decimal('number').nullable(),
    // Sum of the variants' stock, kept by a database trigger.
    stockQuantity: p.integer().default(0).persist(false),
    readyToList: p.boolean().default(false),
    readinessScore: p.smallint().default(0),
    readinessCheckedAt: p.datetime().nullable(),
    recommendedScore: p.integer().default(0),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type IProduct = InferEntity<typeof Product>;

export const ProductVariant = defineEntity({
  name: 'ProductVariant',
  tableName: 'product_variants',
  properties: {
    id: p.integer().primary(),
    product: () => p.manyToOne(Product),
    sku: p.string().unique(),
    title: p.string(),
    optionValues: p.json<Record<string, string>>(),
    wholesalePriceCents: p.integer(),
    retailPriceCents: p.integer(),
    stockQuantity: p.integer().default(0),
    position: p.integer().default(0),
  },
});

export const ProductOption = defineEntity({
  name: 'ProductOption',
  tableName: 'product_options',
  properties: {
    id: p.integer().primary(),
    product: () => p.manyToOne(Product),
    name: p.string(),
    values: p.array().fieldName('values'),
    position: p.integer().default(0),
  },
});

export const ProductImage = defineEntity({
  name: 'ProductImage',
  tableName: 'product_images',
  properties: {
    id: p.integer().primary(),
    product: () => p.manyToOne(Product),
    url: p.string(),
    alt: p.string().default(''),
    position: p.integer().default(0),
  },
});

export const ProductDrawing = defineEntity({
  name: 'ProductDrawing',
  tableName: 'product_drawings',
  properties: {
    id: p.integer().primary(),
    product: () => p.manyToOne(Product),
    url: p.string(),
    title: p.string().default(''),
    position: p.integer().default(0),
  },
});

export const Listing = defineEntity({
  name: 'Listing',
  tableName: 'listings',
  properties: {
    id: p.integer().primary(),
    store: () => p.manyToOne(Store),
    product: () => p.manyToOne(Product),
    customRetailPriceCents: p.integer().nullable(),
    purchaseMode: p.enum(['buy_now', 'enquiry'] as const).nullable(),
    vendorFulfilled: p.boolean().default(false),
    deletedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
