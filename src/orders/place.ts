import type { EntityManager } from '@mikro-orm/postgresql';
import { isoTime, rows, sql } from '../db/sql.ts';
import { AppError, notFound } from '../errors.ts';
import { DISPATCH_WAKE } from '../events/outbox.ts';
import { reserveStock } from './reserve.ts';
import type { ORDER_CHANNELS, ORDER_TYPES } from './schemas.ts';

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

interface VariantRow {
  product_id: number;
  own_goods: boolean;
  active: boolean;
  has_images: boolean;
  name: string;
  variant_id: number;
  sku: string;
  wholesale_price_cents: number;
  retail_price_cents: number;
  variants: number;
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
  const productIds = [...new Set(lines.map((l) => l.product_id))];
  const found = await rows<VariantRow>(
    tx,
    sql`SELECT p.id AS product_id, (p.owner_store_id IS NOT NULL) AS own_goods, p.active,
        (p.image_url IS NOT NULL OR EXISTS (SELECT 1 FROM product_images i WHERE i.product_id = p.id)) AS has_images,
        p.name, v.id AS variant_id, v.sku, v.wholesale_price_cents, v.retail_price_cents,
        count(*) OVER (PARTITION BY p.id)::integer AS variants
      FROM products p JOIN product_variants v ON v.product_id = p.id
      WHERE p.id = ANY(${productIds}::integer[]) AND (p.owner_store_id IS NULL OR p.owner_store_id = ${storeId})
        AND v.retired_at IS NULL
      ORDER BY p.id, v.position, v.id`,
  );
  return lines.map((line) => {
    const variants = found.filter((r) => r.product_id === line.product_id);
    if (!variants.length)
      throw notFound(`No catalogue product with id ${line.product_id}`, 'PRODUCT_NOT_FOUND');
    let variant: VariantRow | undefined;
    if (line.variant_id !== undefined) {
      variant = variants.find((v) => v.variant_id === line.variant_id);
      if (!variant) {
        throw notFound(`Product ${line.product_id} has no variant ${line.variant_id}`, 'VARIANT_NOT_FOUND');
      }
    } else if (variants.length === 1) {
      variant = variants[0];
    } else {
      throw new AppError(
        'bad_request',
        'VARIANT_REQUIRED',
        `Product ${line.product_id} has ${variants.length} variants: name one with variant_id`,
        { extra: { product_id: line.product_id, variant_ids: variants.map((v) => v.variant_id) } },
      );
    }
    return { line, variant: variant as VariantRow };
  });
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
      { extra: { total_cents: subtotal } },
    );
  }
  await reserveStock(
    tx,
    order.lines.map((l) => ({ variantId: l.variantId, productId: l.productId, quantity: l.quantity })),
  );
  const c = order.customer;
  const s = order.shipping;
  const l = order.lines;
  // The order, its lines, its first status, its event and the dispatcher's wake-up in one statement:
  // the variants stay locked until commit, and every round trip here is time other buyers wait.
  const [created] = await rows<{
    id: number;
    order_number: string;
    status: 'pending';
    order_type: NewOrder['orderType'];
    total_cents: number;
    created_at: string;
  }>(
    tx,
    sql`WITH o AS (
        INSERT INTO orders (store_id, order_number, order_type, channel, source, customer_name, customer_email,
          customer_phone, ship_address, ship_address2, ship_city, ship_state, ship_zip, ship_country, subtotal_cents,
          total_cents, payment_method, payment_transaction_id, payment_amount_cents, marketplace, external_order_id)
        VALUES (${order.storeId}, 'SL-' || nextval('order_number_seq'), ${order.orderType}, ${order.channel},
          ${order.source ?? null}, ${c.name}, ${c.email}, ${c.phone}, ${s.address}, ${s.address2}, ${s.city}, ${s.state},
          ${s.zip}, ${s.country}, ${subtotal}, ${subtotal}, ${order.payment?.method ?? null},
          ${order.payment?.transaction_id ?? null}, ${order.payment?.amount_cents ?? null},
          ${order.external?.marketplace ?? null}, ${order.external?.orderId ?? null})
        RETURNING id, order_number, status, order_type, total_cents, created_at
      ), lines AS (
        INSERT INTO order_lines (order_id, product_id, variant_id, sku, name, quantity, price_cents)
        SELECT o.id, u.* FROM o, unnest(${l.map((x) => x.productId)}::integer[], ${l.map((x) => x.variantId)}::integer[],
          ${l.map((x) => x.sku)}::text[], ${l.map((x) => x.name)}::text[], ${l.map((x) => x.quantity)}::integer[],
          ${l.map((x) => x.priceCents)}::integer[]) AS u
      ), history AS (
        INSERT INTO order_status_history (order_id, from_status, to_status) SELECT o.id, NULL, 'pending' FROM o
      ), events AS (
        INSERT INTO domain_events (store_id, event, entity_id, data)
        SELECT ${order.storeId}, 'order.created', o.id, jsonb_build_object('order_id', o.id) FROM o
      )
      SELECT o.id, o.order_number, o.status, o.order_type, o.total_cents, ${isoTime(sql`o.created_at`)} AS created_at
      FROM o CROSS JOIN LATERAL (SELECT ${DISPATCH_WAKE}) AS wake`,
  );
  if (!created) throw new Error('order insert returned nothing');
  return created;
}
