import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import { JOBS } from '../db/jobs.ts';
import { db } from '../db/kysely.ts';
import { isoTime, rows, run, sql } from '../db/sql.ts';
import { AppError, field } from '../errors.ts';
import { DISPATCH_WAKE } from '../events/outbox.ts';
import { EVENT } from '../events/vocabulary/index.ts';
import { inEnqueueSpan } from '../tracing/job-spans.ts';
import { checkStock, reserveStock } from './reserve.ts';
import type { createdOrderOutput, ORDER_CHANNELS, ORDER_TYPES } from './schemas.ts';

/**
 * How long a variant's previous wholesale price still explains an order line that sends it: a client
 * that read the price within this time and orders now meets a change, not a mistake.
 */
const PRICE_MEMORY = sql`interval '30 days'`;

/** The new order as POST /api/v1/orders answers it. */
type CreatedOrder = z.output<typeof createdOrderOutput>['order'];

export interface OrderLine {
  productId: number;
  variantId: number;
  sku: string;
  name: string;
  quantity: number;
  priceCents: number;
}

export interface NewOrder {
  storeId: number;
  /** A test order takes no stock, is numbered `TEST-SL-…` and is seen by test keys only. */
  livemode: boolean;
  orderType: (typeof ORDER_TYPES)[number];
  channel: (typeof ORDER_CHANNELS)[number];
  source?: string | null;
  customer: { email: string; name: string; phone: string };
  shipping: { address: string; address2: string; city: string; state: string; zip: string; country: string };
  payment?: { method: string; transaction_id: string; amount_cents: number };
  /** A marketplace order's natural key. */
  external?: { marketplace: string; orderId: string };
  lines: OrderLine[];
}

export interface RequestedLine {
  product_id: number;
  variant_id?: number;
  quantity: number;
}

/** An id list as one `integer[]` parameter: one statement whatever the number of ids. */
const integers = (ids: number[]) => sql<number[]>`${ids}::integer[]`;

/** The live variants of the products the store may order, with what ordering needs to check. */
function orderableVariants(tx: EntityManager, storeId: number, productIds: number[]) {
  return run(
    db(tx)
      .selectFrom('products as p')
      .innerJoin('product_variants as v', 'v.product_id', 'p.id')
      .select((eb) => [
        eb.ref('p.id').as('product_id'),
        eb('p.owner_store_id', 'is not', null).$castTo<boolean>().as('own_goods'),
        'p.active',
        eb
          .or([
            eb('p.image_url', 'is not', null),
            eb.exists(
              eb
                .selectFrom('product_images as i')
                .select(eb.lit(1).as('one'))
                .whereRef('i.product_id', '=', 'p.id'),
            ),
          ])
          .$castTo<boolean>()
          .as('has_images'),
        'p.name',
        eb.ref('v.id').as('variant_id'),
        'v.sku',
        'v.wholesale_price_cents',
        'v.retail_price_cents',
        // The price before the last change, while that change is recent enough to have been seen.
        sql<
          number | null
        >`CASE WHEN v.wholesale_price_changed_at > now() - ${PRICE_MEMORY} THEN v.previous_wholesale_price_cents END`.as(
          'recent_wholesale_price_cents',
        ),
        eb
          .cast<number>(
            eb.fn.countAll().over((over) => over.partitionBy('p.id')),
            'integer',
          )
          .as('variants'),
      ])
      .where('p.id', '=', (eb) => eb.fn.any(integers(productIds)))
      .where((eb) => eb.or([eb('p.owner_store_id', 'is', null), eb('p.owner_store_id', '=', storeId)]))
      .where('v.retired_at', 'is', null)
      .orderBy('p.id')
      .orderBy('v.position')
      .orderBy('v.id'),
  );
}

/**
 * The variants the lines ask for, with what ordering needs to check. A product the store cannot
 * see (another store's own goods) is as unknown as one that does not exist.
 */
export async function resolveVariants<L extends RequestedLine>(
  tx: EntityManager,
  storeId: number,
  lines: L[],
) {
  const found = await orderableVariants(tx, storeId, [...new Set(lines.map((l) => l.product_id))]);
  return lines.map((line, index) => {
    const variants = found.filter((r) => r.product_id === line.product_id);
    if (!variants.length)
      throw new AppError(
        'not_found',
        'PRODUCT_NOT_FOUND',
        `No catalogue product with id ${line.product_id}`,
        {
          details: field(`items.${index}.product_id`, 'no such catalogue product'),
        },
      );
    return { line, index, variant: pickVariant(variants, line, index) };
  });
}

/** The variant a line (the `index`th item) names, or the product's only one. */
function pickVariant<V extends { variant_id: number }>(variants: V[], line: RequestedLine, index: number): V {
  if (line.variant_id !== undefined) {
    const variant = variants.find((v) => v.variant_id === line.variant_id);
    if (!variant) {
      throw new AppError(
        'not_found',
        'VARIANT_NOT_FOUND',
        `Product ${line.product_id} has no variant ${line.variant_id}`,
        { details: field(`items.${index}.variant_id`, `not a variant of product ${line.product_id}`) },
      );
    }
    return variant;
  }
  const [only, ...others] = variants;
  if (only && !others.length) return only;
  throw new AppError(
    'bad_request',
    'VARIANT_REQUIRED',
    `Product ${line.product_id} has ${variants.length} variants: name one with variant_id`,
    {
      extra: { product_id: line.product_id, variant_ids: variants.map((v) => v.variant_id) },
      details: field(`items.${index}.variant_id`, `required: the product has ${variants.length} variants`),
    },
  );
}

/**
 * Writes an order with its lines in the caller's transaction: stock is reserved first (all lines or
 * none), then the order, its lines, its first status and the `order.created` event.
 */
export async function insertOrder(tx: EntityManager, order: NewOrder) {
  // Checked before any variant is locked: a refused order holds nobody up.
  const subtotal = order.lines.reduce((sum, l) => sum + l.priceCents * l.quantity, 0);
  if (subtotal > 2_147_483_647)
    throw new AppError('bad_request', 'ORDER_TOO_LARGE', 'The order total is too large');
  if (order.payment && order.payment.amount_cents !== subtotal) {
    throw new AppError(
      'bad_request',
      'PAYMENT_MISMATCH',
      `payment.amount_cents (${order.payment.amount_cents}) must equal the order total (${subtotal})`,
      {
        extra: { total_cents: subtotal },
        details: field('payment.amount_cents', `must equal the order total (${subtotal})`),
      },
    );
  }
  const reservations = order.lines.map((l) => ({
    variantId: l.variantId,
    productId: l.productId,
    quantity: l.quantity,
  }));
  // Test orders are refused for want of stock exactly as live ones, but never take it.
  await (order.livemode ? reserveStock(tx, reservations) : checkStock(tx, reservations));
  const numbering = order.livemode
    ? sql`'SL-' || nextval('order_number_seq')`
    : sql`'TEST-SL-' || nextval('test_order_number_seq')`;
  const c = order.customer;
  const s = order.shipping;
  const l = order.lines;
  // The order, its lines, its first status, its event and the dispatcher's wake-up in one statement:
  // the variants stay locked until commit, and every round trip here is time other buyers wait.
  // Raw SQL: data-modifying CTEs over unnest() of the line arrays, and the keyed-job wake.
  // In the enqueue's span: the event row carries its context, so the delivery continues this trace.
  const [created] = await inEnqueueSpan(JOBS.dispatchEvents, (traceparent) =>
    rows(
      tx,
      sql<CreatedOrder>`WITH o AS (
        INSERT INTO orders (store_id, order_number, order_type, channel, source, customer_name, customer_email,
          customer_phone, ship_address, ship_address2, ship_city, ship_state, ship_zip, ship_country, subtotal_cents,
          total_cents, payment_method, payment_transaction_id, payment_amount_cents, marketplace, external_order_id,
          livemode)
        VALUES (${order.storeId}, ${numbering}, ${order.orderType}, ${order.channel},
          ${order.source ?? null}, ${c.name}, ${c.email}, ${c.phone}, ${s.address}, ${s.address2}, ${s.city}, ${s.state},
          ${s.zip}, ${s.country}, ${subtotal}, ${subtotal}, ${order.payment?.method ?? null},
          ${order.payment?.transaction_id ?? null}, ${order.payment?.amount_cents ?? null},
          ${order.external?.marketplace ?? null}, ${order.external?.orderId ?? null}, ${order.livemode})
        RETURNING id, order_number, status, order_type, total_cents, livemode, created_at
      ), lines AS (
        INSERT INTO order_lines (order_id, product_id, variant_id, sku, name, quantity, price_cents)
        SELECT o.id, u.* FROM o, unnest(${l.map((x) => x.productId)}::integer[], ${l.map((x) => x.variantId)}::integer[],
          ${l.map((x) => x.sku)}::text[], ${l.map((x) => x.name)}::text[], ${l.map((x) => x.quantity)}::integer[],
          ${l.map((x) => x.priceCents)}::integer[]) AS u
      ), history AS (
        INSERT INTO order_status_history (order_id, from_status, to_status) SELECT o.id, NULL, 'pending' FROM o
      ), events AS (
        INSERT INTO domain_events (store_id, event, entity_id, data, livemode, traceparent)
        SELECT ${order.storeId}, ${EVENT.order.created}::text, o.id, jsonb_build_object('order_id', o.id), ${order.livemode},
          ${traceparent}::text FROM o
      )
      SELECT o.id, o.order_number, o.status, o.order_type, o.total_cents, o.livemode,
        ${isoTime(sql`o.created_at`)} AS created_at
      FROM o CROSS JOIN LATERAL (SELECT ${DISPATCH_WAKE}) AS wake`,
    ),
  );
  if (!created) throw new Error('order insert returned nothing');
  return created;
}
