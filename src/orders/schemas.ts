import { z } from 'zod';
import { paginationSchema } from '../catalogue/schemas.ts';
import { ORDER_STATUSES } from '../order-status.ts';
import {
  described,
  idParam,
  intParam,
  NUL_MESSAGE,
  noNul,
  PG_INT_MAX,
  storableTime,
  textParam,
} from '../trpc/params.ts';

export { ORDER_STATUSES, type OrderStatus } from '../order-status.ts';

export const ORDER_CHANNELS = [
  'facebook_instagram',
  'google',
  'vendor_link',
  'email',
  'other_referral',
  'direct',
  'unknown',
] as const;
export const ORDER_TYPES = ['storefront', 'wholesale_api', 'marketplace'] as const;

/**
 * `2026-11-01` (a real calendar day) or an ISO 8601 date-time with an offset, years 0001 to 9999
 * (PostgreSQL has no year 0).
 */
const dateParam = z
  .string()
  .max(40)
  .refine(
    (v) =>
      (z.iso.date().safeParse(v).success || z.iso.datetime({ offset: true }).safeParse(v).success) &&
      storableTime(v),
    'must be an ISO date (YYYY-MM-DD) or date-time with a time zone',
  );

export const listOrdersInput = z.object({
  status: z.enum(ORDER_STATUSES).meta(described('Only orders in this status.')).optional(),
  start_date: dateParam
    .meta({
      ...described('Lower bound on created_at, inclusive (a bare date starts at 00:00 UTC).'),
      example: '2026-11-01',
    })
    .optional(),
  end_date: dateParam
    .meta({
      ...described('Upper bound on created_at; a bare date includes that whole day (UTC).'),
      example: '2026-11-30',
    })
    .optional(),
  search: textParam(
    100,
    described('Order number, buyer name or buyer email (substring, case-insensitive).'),
  ).optional(),
  attention: z.enum(['1']).meta(described('`1`: only orders needing action.')).optional(),
  channel: z
    .enum(ORDER_CHANNELS)
    .meta(described('Only orders whose buyer came through this channel.'))
    .optional(),
  page: intParam(1, Number.MAX_SAFE_INTEGER, { default: 1, description: 'Page number, 1-based.' }).default(1),
  limit: intParam(1, 500, { default: 20, description: 'Orders per page (at most 500).' }).default(20),
  sort_by: z.enum(['created_at', 'updated_at', 'id']).meta(described('Sort key.')).default('created_at'),
  order: z.enum(['asc', 'desc']).meta(described('Sort direction.')).default('desc'),
});
export type ListOrdersInput = z.output<typeof listOrdersInput>;

const customer = z.object({
  email: z.string().meta({ example: 'sam.lee@example.com' }),
  name: z.string().meta({ example: 'Sam Lee' }),
  phone: z.string().meta({ example: '+61 400 000 000' }),
});
const shipping = z.object({
  address: z.string().meta({ example: '12 Harbour Street' }),
  address2: z.string().meta({ example: 'Unit 4' }),
  city: z.string().meta({ example: 'Sydney' }),
  state: z.string().meta({ example: 'NSW' }),
  zip: z.string().meta({ example: '2000' }),
  country: z.string().meta({ description: 'ISO 3166-1 alpha-2.', example: 'AU' }),
});

export const orderListItem = z.object({
  id: z.int().meta({ description: 'The order id.', example: 9001 }),
  order_number: z
    .string()
    .meta({ description: '`SL-…`; `TEST-SL-…` for a test order.', example: 'SL-100231' }),
  status: z.enum(ORDER_STATUSES).meta({ example: 'shipped' }),
  order_type: z.enum(ORDER_TYPES).meta({
    description:
      '`storefront`: a buyer checkout; `wholesale_api`: placed by the store through POST /api/v1/orders; `marketplace`: posted by a marketplace app.',
  }),
  channel: z.enum(ORDER_CHANNELS).meta({ description: 'Where the buyer came from.', example: 'google' }),
  total_cents: z.int().meta({ description: 'Total paid, GST included, in cents.', example: 129800 }),
  currency: z.string().meta({ example: 'AUD' }),
  customer: customer.optional().meta(described('Left out without the read_customers app scope.')),
  items_count: z.int().meta({ example: 2 }),
  needs_attention: z
    .boolean()
    .meta({ description: 'The order needs action from the store.', example: false }),
  tracking_number: z
    .string()
    .nullable()
    .meta({ description: 'Set once shipped.', example: 'TRK123456789AU' }),
  invoice_number: z.string().nullable().meta({
    description: '`INV-YYYYMM-NNNNNN` (`TEST-INV-YYYYMM-NNNNNN` in test mode), set once the invoice exists.',
    example: 'INV-202611-000123',
  }),
  livemode: z.boolean().meta({
    description:
      '`false` for a test order, placed with an `sl_test_` key: seen by test keys only, numbered `TEST-SL-…`, never fulfilled, mailed or taken from stock.',
    example: true,
  }),
  created_at: z.iso.datetime().meta({ example: '2026-11-01T22:04:11.000Z' }),
  updated_at: z.iso.datetime().meta({ example: '2026-11-03T02:40:00.000Z' }),
});
export type OrderListItem = z.output<typeof orderListItem>;
export const listOrdersOutput = z.object({ orders: z.array(orderListItem), pagination: paginationSchema });

export const orderDetail = orderListItem
  .extend({
    source: z
      .string()
      .nullable()
      .meta({ description: 'For a marketplace order: the marketplace app it came from.', example: null }),
    subtotal_cents: z.int().meta({ example: 129800 }),
    shipping_cents: z.int().meta({ example: 0 }),
    gst_cents: z.int().meta({ ...described('GST included in total_cents (one eleventh).'), example: 11800 }),
    items: z.array(
      z.object({
        product_id: z.int().meta({ example: 1042 }),
        variant_id: z.int().meta({ example: 5531 }),
        sku: z.string().meta({ example: 'OAK-TBL-180-NAT' }),
        name: z.string().meta({ example: 'Oak dining table 180 cm' }),
        quantity: z.int().meta({ example: 2 }),
        price_cents: z.int().meta({ description: 'Unit price, in cents.', example: 64900 }),
        shipped_quantity: z.int().meta({ example: 2 }),
      }),
    ),
    shipping: shipping.optional().meta(described('Left out without the read_customers app scope.')),
    invoice_issued_at: z.iso.datetime().nullable().meta({ example: '2026-11-03T02:40:00.000Z' }),
    cancel_reason: z.string().nullable().meta({ example: null }),
  })
  .meta({ id: 'Order', description: 'An order of the store, as GET /api/v1/orders/{id} answers it.' });
export type OrderDetail = z.output<typeof orderDetail>;
export const orderOutput = z.object({ order: orderDetail });
export const orderIdInput = z.object({
  id: intParam(1, PG_INT_MAX, { description: 'The order id.', example: 1 }),
});
export type OrderIdInput = z.output<typeof orderIdInput>;

const text = (max: number) => z.string().trim().min(1).max(max).refine(noNul, NUL_MESSAGE);
const optionalText = (max: number) => z.string().trim().max(max).refine(noNul, NUL_MESSAGE).default('');

export const customerInput = z.strictObject({
  email: z.email().max(254).meta({ example: 'sam.lee@example.com' }),
  name: text(200).meta({ example: 'Sam Lee' }),
  phone: optionalText(40).meta({ example: '+61 400 000 000' }),
});
export const shippingInput = z.strictObject({
  address: text(200).meta({ example: '12 Harbour Street' }),
  address2: optionalText(200).meta({ example: 'Unit 4' }),
  city: text(100).meta({ example: 'Sydney' }),
  state: text(100).meta({ example: 'NSW' }),
  zip: text(20).meta({ example: '2000' }),
  country: z
    .string()
    .trim()
    .regex(/^[A-Za-z]{2}$/, 'must be an ISO 3166-1 alpha-2 country code')
    .transform((v) => v.toUpperCase())
    .meta({ description: 'ISO 3166-1 alpha-2 country code.', example: 'AU' }),
});

export const wholesaleOrderInput = z.strictObject({
  customer: customerInput,
  items: z
    .array(
      z.strictObject({
        product_id: intParam(1, PG_INT_MAX, { description: 'The catalogue product id.', example: 1042 }),
        variant_id: idParam
          .optional()
          .meta({ ...described('Required when the product has more than one variant.'), example: 2592 }),
        quantity: intParam(1, 10_000, { example: 2 }),
        price_cents: intParam(0, PG_INT_MAX, {
          description:
            'If sent, must equal the current wholesale price: 409 `PRICE_CHANGED` when it is the price before a change in the last 30 days, else 400 `PRICE_MISMATCH`.',
          example: 21911,
        }).optional(),
      }),
    )
    .min(1)
    .max(100),
  shipping: shippingInput,
  payment: z
    .strictObject({
      method: text(40).meta({ example: 'card' }),
      transaction_id: text(200).meta({ example: 'ch_3PqX9t2eZvKYlo2C0kV1b2c3' }),
      amount_cents: intParam(0, PG_INT_MAX, { example: 43822 }),
    })
    .optional()
    .meta(described('How the store paid, when it records a payment with the order.')),
});
export type WholesaleOrderInput = z.output<typeof wholesaleOrderInput>;

export const createdOrderOutput = z.object({
  order: z.object({
    id: z.int().meta({ example: 9002 }),
    order_number: z.string().meta({ example: 'SL-100232' }),
    status: z.enum(ORDER_STATUSES),
    order_type: z.enum(ORDER_TYPES).meta({ example: 'wholesale_api' }),
    total_cents: z.int().meta({ example: 84000 }),
    livemode: z
      .boolean()
      .meta({ description: '`false` for a test order (an `sl_test_` key).', example: true }),
    created_at: z.iso.datetime().meta({ example: '2026-11-02T09:30:00.000Z' }),
  }),
});

/** The tax invoice as a procedure answers it: JSON-safe, so dashboards over tRPC can take it too. */
export const invoiceOutput = z.object({
  invoice_number: z.string(),
  pdf_base64: z.string(),
});

export const checkoutStorefrontInput = z.object({
  storeId: idParam,
  /** A test checkout (`cli trigger`, demos): a test order, seen by the store's test keys only. */
  livemode: z.boolean().default(true),
  channel: z.enum(ORDER_CHANNELS).default('direct'),
  customer: customerInput,
  shipping: shippingInput,
  items: z
    .array(
      z.object({
        product_id: idParam,
        variant_id: idParam.optional(),
        quantity: z.int().min(1).max(10_000),
      }),
    )
    .min(1)
    .max(100),
});
export type CheckoutStorefrontInput = z.output<typeof checkoutStorefrontInput>;

export const advanceOrderInput = z.object({
  orderId: idParam,
  status: z.enum(ORDER_STATUSES),
  tracking: z.string().trim().min(1).max(100).optional(),
  note: z.string().max(500).optional(),
});
export type AdvanceOrderInput = z.output<typeof advanceOrderInput>;
