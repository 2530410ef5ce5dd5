import { defineEntity, p } from '@mikro-orm/core';
import { Product, ProductVariant, Supplier } from './catalogue.ts';
import { Store } from './store.ts';

export const Order = defineEntity({
  name: 'Order',
  tableName: 'orders',
  indexes: [
    {
      name: 'orders_search_idx',
      expression:
        "CREATE INDEX orders_search_idx ON public.orders USING gin ((((((order_number || ' '::text) || customer_name) || ' '::text) || customer_email)) gin_trgm_ops)",
      type: 'gin',
    },
    {
      name: 'orders_store_attention_idx',
      where: 'needs_attention',
      properties: ['store'],
    },
    { name: 'orders_store_channel_idx', properties: ['store', 'channel'] },
    {
      name: 'orders_store_created_idx',
      properties: ['store', 'livemode', 'createdAt', 'id'],
      columns: [
        { name: 'store_id' },
        { name: 'livemode' },
        { name: 'created_at', sort: 'DESC' },
        { name: 'id' },
      ],
      include: ['status', 'channel', 'needsAttention'],
    },
    {
      name: 'orders_store_id_idx',
      properties: ['store', 'livemode', 'id'],
      include: ['createdAt', 'status', 'channel', 'needsAttention'],
    },
    { name: 'orders_store_status_idx', properties: ['store', 'status'] },
    {
      name: 'orders_store_updated_idx',
      properties: ['store', 'livemode', 'updatedAt', 'id'],
      columns: [
        { name: 'store_id' },
        { name: 'livemode' },
        { name: 'updated_at', sort: 'DESC' },
        { name: 'id' },
      ],
      include: ['status', 'channel', 'needsAttention'],
    },
  ],
  uniques: [
    {
      name: 'orders_external_key',
      where: 'external_order_id IS NOT NULL',
      properties: ['store', 'livemode', 'marketplace', 'externalOrderId'],
    },
  ],
  checks: [
    {
      name: 'orders_check',
      expression: '(invoice_number IS NULL) = (invoice_issued_at IS NULL)',
    },
    {
      name: 'orders_check1',
      expression:
        "(status <> ALL (ARRAY['shipped'::text, 'delivered'::text])) OR (tracking_number IS NOT NULL)",
    },
    {
      name: 'orders_invoice_number_check',
      expression:
        "invoice_number ~ CASE WHEN livemode THEN '^INV-[0-9]{6}-[0-9]{6}$'::text ELSE '^TEST-INV-[0-9]{6}-[0-9]{6}$'::text END",
    },
    {
      name: 'orders_order_number_mode_check',
      expression: "(order_number ~ '^TEST-'::text) = (NOT livemode)",
    },
    { name: 'orders_shipping_cents_check', expression: 'shipping_cents >= 0' },
    { name: 'orders_subtotal_cents_check', expression: 'subtotal_cents >= 0' },
    { name: 'orders_total_cents_check', expression: 'total_cents >= 0' },
  ],
  properties: {
    id: p.integer().primary().autoincrement().generated('by default as identity'),
    store: () => p.manyToOne(Store).updateRule('no action').deleteRule('cascade'),
    orderNumber: p.text().unique('orders_order_number_key'),
    status: p
      .enum(['pending', 'processing', 'fulfilled', 'shipped', 'delivered', 'cancelled'])
      .default('pending'),
    orderType: p.enum(['storefront', 'wholesale_api', 'marketplace']),
    channel: p
      .enum(['facebook_instagram', 'google', 'vendor_link', 'email', 'other_referral', 'direct', 'unknown'])
      .default('unknown'),
    source: p.text().nullable(),
    currency: p.character().length(3).default('AUD'),
    customerName: p.text(),
    customerEmail: p.text(),
    customerPhone: p.text().default(''),
    shipAddress: p.text(),
    shipAddress2: p.text().default(''),
    shipCity: p.text(),
    shipState: p.text(),
    shipZip: p.text(),
    shipCountry: p.text(),
    subtotalCents: p.integer(),
    shippingCents: p.integer().default(0),
    totalCents: p.integer(),
    paymentMethod: p.text().nullable(),
    paymentTransactionId: p.text().nullable(),
    paymentAmountCents: p.integer().nullable(),
    needsAttention: p.boolean().default(false),
    attentionReason: p.text().nullable(),
    trackingNumber: p.text().nullable(),
    invoiceNumber: p.text().nullable().unique('orders_invoice_number_key'),
    invoiceIssuedAt: p.datetime().nullable(),
    cancelReason: p.text().nullable(),
    cancelledAt: p.datetime().nullable(),
    createdAt: p.datetime().defaultRaw(`now()`),
    updatedAt: p.datetime().defaultRaw(`now()`),
    marketplace: p.text().nullable(),
    externalOrderId: p.text().nullable(),
    livemode: p.boolean().default(true),
  },
});

export const OrderLine = defineEntity({
  name: 'OrderLine',
  tableName: 'order_lines',
  indexes: [{ name: 'order_lines_order_idx', properties: ['order', 'id'] }],
  checks: [
    {
      name: 'order_lines_check',
      expression: '(shipped_quantity >= 0) AND (shipped_quantity <= quantity)',
    },
    { name: 'order_lines_price_cents_check', expression: 'price_cents >= 0' },
    { name: 'order_lines_quantity_check', expression: 'quantity > 0' },
  ],
  properties: {
    id: p.integer().primary().autoincrement().generated('by default as identity'),
    order: () => p.manyToOne(Order).updateRule('no action').deleteRule('cascade'),
    product: () => p.manyToOne(Product).updateRule('no action').deleteRule('no action'),
    variant: () => p.manyToOne(ProductVariant).updateRule('no action').deleteRule('no action'),
    sku: p.text(),
    name: p.text(),
    quantity: p.integer(),
    priceCents: p.integer(),
    shippedQuantity: p.integer().default(0),
  },
});

export const OrderStatusChange = defineEntity({
  name: 'OrderStatusChange',
  tableName: 'order_status_history',
  indexes: [{ name: 'order_status_history_order_idx', properties: ['order', 'id'] }],
  properties: {
    id: p.bigint().primary().autoincrement().generated('identity'),
    order: () => p.manyToOne(Order).updateRule('no action').deleteRule('cascade'),
    fromStatus: p.text().nullable(),
    toStatus: p.text(),
    note: p.text().nullable(),
    createdAt: p.datetime().defaultRaw(`now()`),
  },
});

export const PurchaseOrder = defineEntity({
  name: 'PurchaseOrder',
  tableName: 'purchase_orders',
  properties: {
    id: p.integer().primary().autoincrement().generated('identity'),
    store: () => p.manyToOne(Store).updateRule('no action').deleteRule('cascade'),
    supplier: () => p.manyToOne(Supplier).updateRule('no action').deleteRule('no action'),
    order: () =>
      p.manyToOne(Order).updateRule('no action').deleteRule('cascade').index('purchase_orders_order_idx'),
    status: p.enum(['draft', 'sent', 'cancelled']).default('draft'),
    lines: p.json(),
    totalCents: p.integer(),
    createdAt: p.datetime().defaultRaw(`now()`),
  },
});

export const InvoiceCounter = defineEntity({
  name: 'InvoiceCounter',
  tableName: 'invoice_counters',
  checks: [
    {
      name: 'invoice_counters_last_value_check',
      expression: '(last_value >= 0) AND (last_value <= 999999)',
    },
  ],
  properties: {
    livemode: p.boolean().primary().default(true),
    period: p.character().primary().length(6),
    lastValue: p.integer(),
  },
});
