import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../auth/actor.ts';
import { rows, sql } from '../db/sql.ts';
import { AppError } from '../errors.ts';
import { recordEvents } from '../events/outbox.ts';
import { insertOrder } from '../orders/place.ts';
import { getOrder } from '../orders/read.ts';
import type { ExternalOrderInput, HoldLine } from './schemas.ts';

interface Mapped {
  sku: string;
  product_id: number | null;
  variant_id: number | null;
  own: boolean | null;
  supplier_id: number | null;
  name: string | null;
  stock: number | null;
}

/**
 * A SKU names the store's own-goods variant with that SKU, or whatever an explicit mapping says
 * (`skus:map`). One query for every line.
 */
async function mapSkus(tx: EntityManager, storeId: number, skus: string[]): Promise<Map<string, Mapped>> {
  const found = await rows<Mapped>(
    tx,
    sql`SELECT s.sku, v.id AS variant_id, v.product_id, (p.owner_store_id = ${storeId}) AS own, p.supplier_id,
        p.name, v.stock_quantity AS stock
      FROM unnest(${skus}::text[]) AS s(sku)
      LEFT JOIN sku_mappings m ON m.store_id = ${storeId} AND m.sku = s.sku
      LEFT JOIN LATERAL (
        SELECT v.* FROM product_variants v JOIN products p ON p.id = v.product_id
        WHERE ((m.variant_id IS NOT NULL AND v.id = m.variant_id)
           OR (m.variant_id IS NULL AND v.sku = s.sku AND p.owner_store_id = ${storeId}))
          AND v.retired_at IS NULL
        LIMIT 1
      ) v ON true
      LEFT JOIN products p ON p.id = v.product_id`,
  );
  return new Map(found.map((r) => [r.sku, r]));
}

type PostRow = { id: number; status: 'pending' | 'created' | 'held'; order_id: number | null };
type Posted =
  | { result: 'existing' | 'created'; orderId: number }
  | { result: 'held'; hold: { reason: HoldLine['reason']; lines: HoldLine[] } };

/**
 * A marketplace app posts an order the store sold elsewhere. The natural key (store, marketplace,
 * external order id) makes it idempotent: the first post creates (201) or holds (202) it, any repeat
 * answers the existing order (200), and concurrent repeats wait on the key's row lock.
 * Only the store's own goods are accepted: a line Stockless supplies, an unmapped SKU or a line
 * without enough stock holds the post (recorded, needing attention) until it is posted again.
 */
export async function postExternalOrder(em: EntityManager, actor: Actor, input: ExternalOrderInput) {
  checkTotal(input);
  const result = await em.transactional(async (tx): Promise<Posted> => {
    const post = await claimPost(tx, actor, input);
    if ('orderId' in post) return { result: 'existing', orderId: post.orderId };
    const mapped = await mapAndLock(tx, actor.storeId, input);
    const hold = holdLines(input, mapped);
    if (hold.length) return holdPost(tx, actor.storeId, post.id, input, hold);
    const orderId = await createOrder(tx, actor.storeId, input, mapped);
    await rows(
      tx,
      sql`UPDATE external_orders SET status = 'created', order_id = ${orderId}, hold_reason = NULL, hold_lines = NULL,
          updated_at = now() WHERE id = ${post.id}`,
    );
    return { result: 'created', orderId };
  });
  if (result.result === 'held') return { result: 'held' as const, order: null, hold: result.hold };
  const { order } = await getOrder(em, actor, result.orderId);
  return { result: result.result, order, hold: null };
}

function checkTotal(input: ExternalOrderInput) {
  const computed = input.items.reduce((sum, i) => sum + i.quantity * i.price_cents, 0);
  if (computed !== input.total_cents) {
    throw new AppError(
      'bad_request',
      'TOTAL_MISMATCH',
      `total_cents is ${input.total_cents} but the lines add up to ${computed}`,
      {
        extra: {
          details: [{ path: 'total_cents', message: `must equal the sum of the lines (${computed})` }],
        },
      },
    );
  }
}

/**
 * Records the post under its natural key and locks the key's row (a concurrent post of the same order
 * waits here until this one commits); answers the order when it exists already, by this path or by
 * the store's own online-shop import with the same key.
 */
async function claimPost(
  tx: EntityManager,
  actor: Actor,
  input: ExternalOrderInput,
): Promise<PostRow | { orderId: number }> {
  const storeId = actor.storeId;
  await rows(
    tx,
    sql`INSERT INTO external_orders (store_id, marketplace, external_order_id, status, payload, credential)
      VALUES (${storeId}, ${input.marketplace}, ${input.external_order_id}, 'pending', ${JSON.stringify(input)}::jsonb,
        ${`${actor.kind}:${actor.credentialId}`})
      ON CONFLICT (store_id, marketplace, external_order_id) DO NOTHING`,
  );
  const [post] = await rows<PostRow>(
    tx,
    sql`SELECT id, status, order_id FROM external_orders
      WHERE store_id = ${storeId} AND marketplace = ${input.marketplace} AND external_order_id = ${input.external_order_id}
      FOR UPDATE`,
  );
  if (!post) throw new Error('external order row vanished');
  if (post.status === 'created' && post.order_id) return { orderId: post.order_id };
  const [imported] = await rows<{ id: number }>(
    tx,
    sql`SELECT id FROM orders WHERE store_id = ${storeId} AND marketplace = ${input.marketplace}
      AND external_order_id = ${input.external_order_id}`,
  );
  if (!imported) return post;
  await rows(
    tx,
    sql`UPDATE external_orders SET status = 'created', order_id = ${imported.id}, updated_at = now() WHERE id = ${post.id}`,
  );
  return { orderId: imported.id };
}

/**
 * Maps the lines' SKUs, then locks the store's variants (id order, as every reservation does) and
 * reads their stock under the lock, so two posts racing for the last units hold rather than fail.
 */
async function mapAndLock(tx: EntityManager, storeId: number, input: ExternalOrderInput) {
  const mapped = await mapSkus(tx, storeId, [...new Set(input.items.map((i) => i.sku))]);
  const ownIds = [
    ...new Set([...mapped.values()].filter((m) => m.own && m.variant_id).map((m) => m.variant_id as number)),
  ];
  const locked = await rows<{ id: number; stock_quantity: number }>(
    tx,
    sql`SELECT id, stock_quantity FROM product_variants WHERE id = ANY(${ownIds.sort((a, b) => a - b)}::integer[])
      ORDER BY id FOR UPDATE`,
  );
  for (const m of mapped.values()) {
    const fresh = locked.find((l) => l.id === m.variant_id);
    if (fresh) m.stock = fresh.stock_quantity;
  }
  return mapped;
}

/** The lines that hold the post: an unmapped SKU, a line Stockless supplies, too little stock. */
function holdLines(input: ExternalOrderInput, mapped: Map<string, Mapped>): HoldLine[] {
  const wanted = new Map<number, number>();
  for (const i of input.items) {
    const m = mapped.get(i.sku);
    if (m?.variant_id) wanted.set(m.variant_id, (wanted.get(m.variant_id) ?? 0) + i.quantity);
  }
  const hold: HoldLine[] = [];
  for (const i of input.items) {
    const m = mapped.get(i.sku);
    if (!m?.variant_id) hold.push({ sku: i.sku, reason: 'unmapped_sku' });
    else if (!m.own) hold.push({ sku: i.sku, reason: 'service_supplied' });
    else if ((m.stock ?? 0) < (wanted.get(m.variant_id) ?? 0))
      hold.push({ sku: i.sku, reason: 'insufficient_stock' });
  }
  return hold;
}

async function holdPost(
  tx: EntityManager,
  storeId: number,
  postId: number,
  input: ExternalOrderInput,
  hold: HoldLine[],
): Promise<Posted> {
  const reason = (['unmapped_sku', 'service_supplied', 'insufficient_stock'] as const).find((r) =>
    hold.some((h) => h.reason === r),
  ) as HoldLine['reason'];
  await rows(
    tx,
    sql`UPDATE external_orders SET status = 'held', hold_reason = ${reason}, hold_lines = ${JSON.stringify(hold)}::jsonb,
        payload = ${JSON.stringify(input)}::jsonb, updated_at = now()
      WHERE id = ${postId}`,
  );
  await recordEvents(tx, [
    {
      storeId,
      event: 'order.held',
      entityId: postId,
      data: {
        marketplace: input.marketplace,
        external_order_id: input.external_order_id,
        reason,
        lines: hold,
      },
    },
  ]);
  return { result: 'held', hold: { reason, lines: hold } };
}

/** The order, paid on the marketplace, and a draft purchase order per supplier for the store. */
async function createOrder(
  tx: EntityManager,
  storeId: number,
  input: ExternalOrderInput,
  mapped: Map<string, Mapped>,
): Promise<number> {
  const lines = input.items.map((i) => {
    const m = mapped.get(i.sku) as Mapped;
    return {
      productId: m.product_id as number,
      variantId: m.variant_id as number,
      sku: i.sku,
      name: m.name ?? i.sku,
      quantity: i.quantity,
      priceCents: i.price_cents,
      supplierId: m.supplier_id as number,
    };
  });
  // Paid on the marketplace: recorded as paid, no buyer mail, nothing in Stockless's ledger.
  const order = await insertOrder(tx, {
    storeId,
    orderType: 'marketplace',
    channel: 'other_referral',
    source: input.marketplace,
    customer: input.customer,
    shipping: input.shipping,
    payment: {
      method: 'marketplace',
      transaction_id: input.external_order_id,
      amount_cents: input.total_cents,
    },
    external: { marketplace: input.marketplace, orderId: input.external_order_id },
    lines,
  });
  await rows(
    tx,
    sql`INSERT INTO purchase_orders (store_id, supplier_id, order_id, lines, total_cents)
      SELECT ${storeId}, l.supplier_id, ${order.id},
        jsonb_agg(jsonb_build_object('sku', l.sku, 'quantity', l.quantity, 'variant_id', l.variant_id) ORDER BY l.sku),
        sum(l.quantity * l.price)::integer
      FROM unnest(${lines.map((l) => l.supplierId)}::integer[], ${lines.map((l) => l.sku)}::text[],
        ${lines.map((l) => l.quantity)}::integer[], ${lines.map((l) => l.variantId)}::integer[],
        ${lines.map((l) => l.priceCents)}::integer[]) AS l(supplier_id, sku, quantity, variant_id, price)
      GROUP BY l.supplier_id`,
  );
  return order.id;
}
