import type { EntityManager } from '@mikro-orm/postgresql';
import type { Selectable } from 'kysely';
import type { Actor } from '../auth/actor.ts';
import { type DB, db } from '../db/kysely.ts';
import { ownedBy } from '../db/owned-by.ts';
import { first, run, sql } from '../db/sql.ts';
import { AppError } from '../errors.ts';
import { domainEvent, recordEvents } from '../events/outbox.ts';
import { EVENT } from '../events/vocabulary/index.ts';
import { getOrder } from '../orders/get-order.ts';
import { insertOrder, type OrderLine } from '../orders/place.ts';
import type { PartnerContext } from '../trpc/context.ts';
import type { ExternalOrderInput, HoldLine } from './schemas.ts';

/**
 * A SKU names the store's own-goods variant with that SKU, or whatever an explicit mapping says
 * (`skus:map`). One query for every line.
 */
async function resolveSkus(tx: EntityManager, storeId: number, skus: string[]) {
  const found = await run(
    db(tx)
      .selectFrom(
        sql<Pick<Selectable<DB['sku_mappings']>, 'sku'>>`unnest(${skus}::text[])`.as<'s'>(sql`s(sku)`),
      )
      .leftJoin('sku_mappings as m', (join) =>
        join.on(ownedBy({ storeId }, 'sku_mappings as m')).onRef('m.sku', '=', 's.sku'),
      )
      .leftJoinLateral(
        (eb) =>
          eb
            .selectFrom('product_variants as v')
            .innerJoin('products as p', 'p.id', 'v.product_id')
            .selectAll('v')
            .where((eb) =>
              eb.or([
                eb.and([eb('m.variant_id', 'is not', null), eb('v.id', '=', eb.ref('m.variant_id'))]),
                eb.and([
                  eb('m.variant_id', 'is', null),
                  eb('v.sku', '=', eb.ref('s.sku')),
                  eb('p.owner_store_id', '=', storeId),
                ]),
              ]),
            )
            .where('v.retired_at', 'is', null)
            .limit(1)
            .as('v'),
        (join) => join.onTrue(),
      )
      .leftJoin('products as p', 'p.id', 'v.product_id')
      .select((eb) => [
        's.sku',
        eb.ref('v.id').as('variant_id'),
        'v.product_id',
        eb('p.owner_store_id', '=', storeId).as('own'),
        'p.supplier_id',
        'p.name',
        eb.ref('v.stock_quantity').as('stock'),
      ]),
  );
  return new Map(found.map((r) => [r.sku, r]));
}

type MappedSkus = Awaited<ReturnType<typeof resolveSkus>>;
type Mapped = NonNullable<ReturnType<MappedSkus['get']>>;

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
export async function postExternalOrder(ctx: PartnerContext, input: ExternalOrderInput) {
  const { em, actor } = ctx;
  checkTotal(input);
  const result = await em.transactional(async (tx): Promise<Posted> => {
    const post = await claimPost(tx, actor, input);
    if ('orderId' in post) return { result: 'existing', orderId: post.orderId };
    const mapped = await mapAndLock(tx, actor, input);
    const hold = holdLines(input, mapped);
    if (hold.length) return holdPost(tx, actor, post.id, input, hold);
    const orderId = await createOrder(tx, actor, input, mapped);
    await run(
      db(tx)
        .updateTable('external_orders')
        .set({
          status: 'created',
          order_id: orderId,
          hold_reason: null,
          hold_lines: null,
          updated_at: sql`now()`,
        })
        .where('id', '=', post.id)
        .where(ownedBy(actor, 'external_orders')),
    );
    return { result: 'created', orderId };
  });
  if (result.result === 'held') return { result: 'held' as const, order: null, hold: result.hold };
  const { order } = await getOrder(ctx, { id: result.orderId });
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
async function claimPost(tx: EntityManager, actor: Actor, input: ExternalOrderInput) {
  const storeId = actor.storeId;
  const natural = { marketplace: input.marketplace, external_order_id: input.external_order_id };
  const key = { store_id: storeId, livemode: actor.livemode, ...natural };
  await run(
    db(tx)
      .insertInto('external_orders')
      .values({
        ...key,
        status: 'pending',
        payload: JSON.stringify(input),
        credential: `${actor.kind}:${actor.credentialId}`,
      })
      .onConflict((oc) =>
        oc.columns(['store_id', 'livemode', 'marketplace', 'external_order_id']).doNothing(),
      ),
  );
  const post = await first(
    db(tx)
      .selectFrom('external_orders')
      .select(['id', 'status', 'order_id'])
      .where(ownedBy(actor, 'external_orders'))
      .where((eb) => eb.and(natural))
      .forUpdate(),
  );
  if (!post) throw new Error('external order row vanished');
  if (post.status === 'created' && post.order_id) return { orderId: post.order_id };
  const imported = await first(
    db(tx)
      .selectFrom('orders')
      .select('id')
      .where(ownedBy(actor, 'orders'))
      .where((eb) => eb.and(natural)),
  );
  if (!imported) return post;
  await run(
    db(tx)
      .updateTable('external_orders')
      .set({ status: 'created', order_id: imported.id, updated_at: sql`now()` })
      .where('id', '=', post.id)
      .where(ownedBy(actor, 'external_orders')),
  );
  return { orderId: imported.id };
}

/**
 * Maps the lines' SKUs, then locks the store's variants (id order, as every reservation does) and
 * reads their stock under the lock, so two posts racing for the last units hold rather than fail. A
 * test post takes no stock, so it reads it without a lock and never makes a live buyer wait.
 */
async function mapAndLock(tx: EntityManager, { storeId, livemode }: Actor, input: ExternalOrderInput) {
  const mapped = await resolveSkus(tx, storeId, [...new Set(input.items.map((i) => i.sku))]);
  const ownIds = [
    ...new Set([...mapped.values()].filter((m) => m.own && m.variant_id).map((m) => m.variant_id as number)),
  ];
  const variants = db(tx)
    .selectFrom('product_variants')
    .select(['id', 'stock_quantity'])
    .where((eb) => eb('id', '=', eb.fn.any(sql<number[]>`${ownIds.sort((a, b) => a - b)}::integer[]`)))
    .orderBy('id');
  const locked = await run(livemode ? variants.forUpdate() : variants);
  for (const m of mapped.values()) {
    const fresh = locked.find((l) => l.id === m.variant_id);
    if (fresh) m.stock = fresh.stock_quantity;
  }
  return mapped;
}

/** The lines that hold the post: an unmapped SKU, a line Stockless supplies, too little stock. */
function holdLines(input: ExternalOrderInput, mapped: MappedSkus): HoldLine[] {
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
  { storeId, livemode }: Actor,
  postId: number,
  input: ExternalOrderInput,
  hold: HoldLine[],
): Promise<Posted> {
  const reason = (['unmapped_sku', 'service_supplied', 'insufficient_stock'] as const).find((r) =>
    hold.some((h) => h.reason === r),
  ) as HoldLine['reason'];
  await run(
    db(tx)
      .updateTable('external_orders')
      .set({
        status: 'held',
        hold_reason: reason,
        hold_lines: JSON.stringify(hold),
        payload: JSON.stringify(input),
        updated_at: sql`now()`,
      })
      .where('id', '=', postId)
      .where(ownedBy({ storeId, livemode }, 'external_orders')),
  );
  await recordEvents(tx, [
    domainEvent(EVENT.order.held, {
      storeId,
      livemode,
      entityId: postId,
      data: {
        marketplace: input.marketplace,
        external_order_id: input.external_order_id,
        reason,
        lines: hold,
      },
    }),
  ]);
  return { result: 'held', hold: { reason, lines: hold } };
}

/** The order, paid on the marketplace, and a draft purchase order per supplier for the store. */
async function createOrder(
  tx: EntityManager,
  { storeId, livemode }: Actor,
  input: ExternalOrderInput,
  mapped: MappedSkus,
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
    livemode,
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
  // Test orders are never fulfilled: no purchase order reaches a supplier.
  if (livemode) await insertPurchaseOrders(tx, storeId, order.id, lines);
  return order.id;
}

/** A line as `unnest` hands it to the purchase-order insert. */
type SupplierLine = Pick<Selectable<DB['purchase_orders']>, 'supplier_id'> &
  Pick<Selectable<DB['order_lines']>, 'sku' | 'quantity' | 'variant_id' | 'price_cents'>;

/** A draft purchase order per supplier of the lines, in one statement. */
async function insertPurchaseOrders(
  tx: EntityManager,
  storeId: number,
  orderId: number,
  lines: (OrderLine & { supplierId: number })[],
) {
  // A multi-array unnest with column names, which the builder has no form for.
  const l = sql<SupplierLine>`unnest(
      ${lines.map((l) => l.supplierId)}::integer[], ${lines.map((l) => l.sku)}::text[],
      ${lines.map((l) => l.quantity)}::integer[], ${lines.map((l) => l.variantId)}::integer[],
      ${lines.map((l) => l.priceCents)}::integer[]
    )`.as<'l'>(sql`l(supplier_id, sku, quantity, variant_id, price_cents)`);
  await run(
    db(tx)
      .insertInto('purchase_orders')
      .columns(['store_id', 'supplier_id', 'order_id', 'lines', 'total_cents'])
      .expression((eb) =>
        eb
          .selectFrom(l)
          .select((eb) => [
            eb.val(storeId).as('store_id'),
            'l.supplier_id',
            eb.val(orderId).as('order_id'),
            eb.fn
              .agg('jsonb_agg', [
                eb.fn('jsonb_build_object', [
                  sql.lit('sku'),
                  'l.sku',
                  sql.lit('quantity'),
                  'l.quantity',
                  sql.lit('variant_id'),
                  'l.variant_id',
                ]),
              ])
              .orderBy('l.sku')
              .as('lines'),
            eb
              .cast<number>(eb.fn.sum(eb('l.quantity', '*', eb.ref('l.price_cents'))), 'integer')
              .as('total_cents'),
          ])
          .groupBy('l.supplier_id'),
      ),
  );
}
