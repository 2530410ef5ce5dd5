import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../auth/actor.ts';
import type { WebhookCoalescePayload } from '../db/job-payloads.ts';
import { JOBS, type JobInput, jobPayloadJson, keyedJob } from '../db/jobs.ts';
import { db } from '../db/kysely.ts';
import { rows, run, sql } from '../db/sql.ts';
import { AppError } from '../errors.ts';
import type { EventFanOut } from '../events/dispatch.ts';
import { idsOnlyData, onlyVariant } from '../events/ids-only.ts';
import { getOrder } from '../orders/get-order.ts';
import { COALESCED_EVENTS, ORDER_PAYLOAD_EVENTS } from './events.ts';
import { wakeDeliveries } from './wake.ts';

export interface SourceEvent {
  store_id: number;
  event: string;
  entity_id: string;
  data: Record<string, unknown>;
  created_at: string;
}

export interface NewWebhookEvent {
  storeId: number;
  event: string;
  eventKey: string;
  createdAt: string;
  data: Record<string, unknown>;
  /** Only this subscription (a ping); otherwise every active subscription of the store that wants it. */
  subscriptionId?: number;
}

/** One store's change to a product in a coalescing window; Graphile concatenates these per job key. */
type CoalescedChange = WebhookCoalescePayload[number];

/** The store's full view of its own order (webhooks are managed with API keys, never app tokens). */
function storeActor(storeId: number): Actor {
  return {
    storeId,
    kind: 'api_key',
    scope: 'read_write',
    appScopes: new Set(),
    credentialId: 0,
    canReadCustomers: true,
  };
}

/** `{ order }` as the store reads it; an order that cannot be read never blocks the dispatcher. */
async function orderPayload(tx: EntityManager, e: SourceEvent): Promise<Record<string, unknown>> {
  try {
    return await getOrder({ em: tx, actor: storeActor(e.store_id) }, { id: Number(e.entity_id) });
  } catch (err) {
    if (err instanceof AppError && err.category === 'not_found')
      return { order: null, order_id: Number(e.entity_id) };
    throw err;
  }
}

/**
 * Stores the events and one pending delivery per subscription that wants each, in the caller's
 * transaction, and wakes the delivery job. The envelope is serialised once here: every attempt sends
 * and signs the same bytes.
 */
export async function createWebhookEvents(tx: EntityManager, events: NewWebhookEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  const bodies = events.map((e) =>
    JSON.stringify({ event: e.event, event_key: e.eventKey, created_at: e.createdAt, data: e.data }),
  );
  const [made] = await rows<{ n: number }>(
    tx,
    sql`WITH input AS (
        SELECT * FROM unnest(${events.map((e) => e.storeId)}::integer[], ${events.map((e) => e.event)}::text[],
          ${events.map((e) => e.eventKey)}::text[], ${bodies}::text[], ${events.map((e) => e.createdAt)}::timestamptz[],
          ${events.map((e) => e.subscriptionId ?? null)}::integer[])
          WITH ORDINALITY AS i(store_id, event, event_key, body, created_at, only_subscription, ord)
      ), targets AS MATERIALIZED (
        -- Ids are drawn first so two identical envelopes in one batch stay two events.
        SELECT nextval(pg_get_serial_sequence('webhook_events', 'id')) AS event_id, t.* FROM (
          SELECT i.*, array_agg(s.id) AS subscriptions FROM input i
          JOIN webhook_subscriptions s ON s.store_id = i.store_id AND s.active
            AND (s.id = i.only_subscription OR (i.only_subscription IS NULL AND (i.event = ANY (s.events) OR '*' = ANY (s.events))))
          GROUP BY i.ord, i.store_id, i.event, i.event_key, i.body, i.created_at, i.only_subscription
        ) t
      ), stored AS (
        INSERT INTO webhook_events (id, store_id, event, event_key, body, created_at) OVERRIDING SYSTEM VALUE
        SELECT event_id, store_id, event, event_key, body, created_at FROM targets
      ), deliveries AS (
        INSERT INTO webhook_deliveries (subscription_id, event_id)
        SELECT unnest(subscriptions), event_id FROM targets
        RETURNING 1
      )
      SELECT count(*)::integer AS n FROM deliveries`,
  );
  if (made?.n) await wakeDeliveries(tx);
  return made?.n ?? 0;
}

/** The event dispatcher's fan-out to webhooks, with the coalescing window of config. */
export function webhookFanOut(coalesceWindowMs: number): EventFanOut {
  return (tx, events) => fanOutToWebhooks(tx, events, coalesceWindowMs);
}

/**
 * Attaches webhooks to the event dispatcher, in the dispatcher's transaction. Order, invoice and
 * site events become deliveries now; `product.*` and `inventory.updated` go to a coalescing job per
 * (event, product), whose payload collects every store's changes while the window is open: a stock
 * change of a product 10,000 stores list is one job, not 10,000. Stores with no active subscription
 * for an event cost nothing but the subscription lookup.
 */
export async function fanOutToWebhooks(
  tx: EntityManager,
  batch: SourceEvent[],
  coalesceWindowMs: number,
): Promise<void> {
  if (batch.length === 0) return;
  const storeIds = [...new Set(batch.map((e) => e.store_id))];
  const subs = await run(
    db(tx)
      .selectFrom('webhook_subscriptions')
      .select(['store_id', 'events'])
      .where('active', '=', true)
      .where('store_id', '=', sql<number>`ANY (${storeIds}::integer[])`),
  );
  const wants = (storeId: number, event: string) =>
    subs.some((s) => s.store_id === storeId && (s.events.includes(event) || s.events.includes('*')));

  const immediate: NewWebhookEvent[] = [];
  const coalesced = new Map<string, CoalescedChange[]>();
  for (const e of batch) {
    if (!wants(e.store_id, e.event)) continue;
    if (COALESCED_EVENTS.includes(e.event)) {
      const productId = Number(e.entity_id);
      const key = `${JOBS.webhookCoalesce}:${e.event}:${productId}`;
      const variant = typeof e.data.variant_id === 'number' ? e.data.variant_id : null;
      const list = coalesced.get(key) ?? [];
      list.push({
        store_id: e.store_id,
        event: e.event,
        product_id: productId,
        variant_id: variant,
        at: Date.now(),
      });
      coalesced.set(key, list);
      continue;
    }
    const data = ORDER_PAYLOAD_EVENTS.includes(e.event) ? await orderPayload(tx, e) : e.data;
    immediate.push({
      storeId: e.store_id,
      event: e.event,
      eventKey: `${e.event}:${e.entity_id}`,
      createdAt: e.created_at,
      data,
    });
  }
  await createWebhookEvents(tx, immediate);
  if (coalesced.size > 0) {
    // In key order: concurrent dispatcher batches update shared job rows in one order, never a cycle.
    const keys = [...coalesced.keys()].sort();
    const payloads = keys.map((k) => jobPayloadJson(JOBS.webhookCoalesce, coalesced.get(k) ?? []));
    await rows(
      tx,
      // 'preserve_run_at': the window opens with the first change and is not pushed back by later
      // ones; array payloads are concatenated by Graphile while the job waits.
      sql`SELECT ${keyedJob(JOBS.webhookCoalesce, {
        payloadSql: sql<JobInput<typeof JOBS.webhookCoalesce>>`c.payload::json`,
        key: sql`c.key`,
        mode: 'preserve_run_at',
        runAt: sql`now() + ${coalesceWindowMs} * interval '1 millisecond'`,
      })}
          FROM unnest(${keys}::text[], ${payloads}::text[]) AS c(key, payload)`,
    );
  }
}

/** Stores whose coalesced events are written per transaction when a window closes. */
const COALESCE_BATCH = 1000;

/**
 * A coalescing window closed: for each store whose changes it collected, one ids-only event for the
 * product, with the variant when every change of that store in the window was to that one variant.
 * Written in batches of stores, each its own transaction, so no transaction holds 10,000 stores' rows.
 */
export async function closeCoalescingWindow(em: EntityManager, payload: unknown): Promise<number> {
  const changes = (Array.isArray(payload) ? payload : []) as CoalescedChange[];
  const byStore = new Map<number, CoalescedChange[]>();
  for (const c of changes) {
    const mine = byStore.get(c.store_id);
    if (mine) mine.push(c);
    else byStore.set(c.store_id, [c]);
  }
  const now = new Date();
  const events: NewWebhookEvent[] = [...byStore.values()].map((mine) => {
    const first = mine[0] as CoalescedChange;
    const data = idsOnlyData(
      first.product_id,
      onlyVariant(mine.map((c) => (c.variant_id === null ? null : [c.variant_id]))),
    );
    // The key's time is the window's first change for this store: a close retried after some batches
    // committed repeats the keys of those it writes again, so receivers can drop the repeats.
    const opened = Math.min(...mine.map((c) => c.at ?? now.getTime()));
    return {
      storeId: first.store_id,
      event: first.event,
      eventKey: `${first.event}:${first.product_id}.${opened}`,
      createdAt: now.toISOString(),
      data,
    };
  });
  let made = 0;
  for (let i = 0; i < events.length; i += COALESCE_BATCH) {
    const batch = events.slice(i, i + COALESCE_BATCH);
    made += await em.transactional((tx) => createWebhookEvents(tx, batch));
  }
  return made;
}
