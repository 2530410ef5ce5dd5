import type { EntityManager } from '@mikro-orm/postgresql';
import { storeActor } from '../auth/actor.ts';
import type { WebhookCoalescePayload } from '../db/job-payloads.ts';
import { JOBS, type JobInput, jobPayloadJson, keyedJob } from '../db/jobs.ts';
import { rows, sql } from '../db/sql.ts';
import { AppError } from '../errors.ts';
import type { EventFanOut } from '../events/dispatch.ts';
import { envelopeWithoutId } from '../events/envelope.ts';
import { idsOnlyData, onlyVariant } from '../events/ids-only.ts';
import {
  type EventName,
  isCoalescedEvent,
  isEventName,
  isOrderPayloadEvent,
  type OrderEventData,
} from '../events/vocabulary/index.ts';
import { getOrder } from '../orders/get-order.ts';
import type { OrderDetail } from '../orders/schemas.ts';
import { wakeDeliveries } from './delivery/wake-deliveries.ts';

export interface SourceEvent {
  store_id: number;
  event: EventName;
  entity_id: string;
  data: Record<string, unknown>;
  created_at: string;
  /** Absent: a live event. */
  livemode?: boolean;
  /** The dispatch's trace context for this event (src/events/traced-fan-out.ts), when traced. */
  traceparent?: string | null;
}

export interface NewWebhookEvent {
  storeId: number;
  event: EventName;
  eventKey: string;
  createdAt: string;
  data: Record<string, unknown>;
  /** Absent: true. */
  livemode?: boolean;
  /** Only this subscription (a ping); otherwise every active subscription of the store that wants it. */
  subscriptionId?: number;
  /** The trace its delivery attempts continue (docs/tracing.md); none for coalesced events. */
  traceparent?: string | null;
}

/** Changes to a product in a coalescing window; Graphile concatenates these per job key. */
type CoalescedItem = WebhookCoalescePayload[number];

/** One store's change to the product, as a window's items say it. */
interface StoreChange {
  store_id: number;
  event: EventName;
  product_id: number;
  variant_id: number | null;
  at: number | undefined;
  livemode: boolean;
}

/**
 * `{ order }` as the store reads it (its full view: webhooks are managed with API keys, never app
 * tokens); an order that cannot be read never blocks the dispatcher.
 */
async function orderPayload(tx: EntityManager, e: SourceEvent): Promise<OrderEventData<OrderDetail>> {
  try {
    return await getOrder(
      { em: tx, actor: storeActor(e.store_id, e.livemode ?? true) },
      { id: Number(e.entity_id) },
    );
  } catch (err) {
    if (err instanceof AppError && err.category === 'not_found')
      return { order: null, order_id: Number(e.entity_id) };
    throw err;
  }
}

/**
 * Stores the events in the event log, every one of them whether or not a subscription wants it, and
 * one pending delivery per active subscription that wants each, in the caller's transaction; wakes
 * the delivery job when there is one. The envelope is serialised once here, its id (`evt_<row id>`)
 * put first by the statement that draws the row's id: every attempt sends and signs the same bytes,
 * and GET /api/v1/events answers them.
 */
export async function createWebhookEvents(tx: EntityManager, events: NewWebhookEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  const bodies = events.map((e) =>
    envelopeWithoutId({
      event: e.event,
      event_key: e.eventKey,
      created_at: e.createdAt,
      livemode: e.livemode ?? true,
      data: e.data,
    }),
  );
  const [made] = await rows<{ n: number }>(
    tx,
    sql`WITH input AS (
        SELECT * FROM unnest(${events.map((e) => e.storeId)}::integer[], ${events.map((e) => e.event)}::text[],
          ${events.map((e) => e.eventKey)}::text[], ${bodies}::text[], ${events.map((e) => e.createdAt)}::timestamptz[],
          ${events.map((e) => e.livemode ?? true)}::boolean[], ${events.map((e) => e.subscriptionId ?? null)}::integer[],
          ${events.map((e) => e.traceparent ?? null)}::text[])
          WITH ORDINALITY AS i(store_id, event, event_key, body, created_at, livemode, only_subscription, traceparent, ord)
      ), ids AS MATERIALIZED (
        -- Ids drawn in the batch's order (the log's order within one transaction), before the insert:
        -- the body carries its own id.
        SELECT nextval(pg_get_serial_sequence('webhook_events', 'id')) AS event_id, o.*
        FROM (SELECT * FROM input ORDER BY ord) o
      ), stored AS (
        INSERT INTO webhook_events (id, store_id, event, event_key, body, created_at, livemode, traceparent) OVERRIDING SYSTEM VALUE
        SELECT event_id, store_id, event, event_key, '{"id":"evt_' || event_id || '",' || substr(body, 2), created_at, livemode,
          traceparent
        FROM ids
      ), deliveries AS (
        INSERT INTO webhook_deliveries (subscription_id, event_id)
        SELECT s.id, ids.event_id FROM ids
        -- A test event reaches the store's test subscriptions only, a live one its live subscriptions.
        JOIN webhook_subscriptions s ON s.store_id = ids.store_id AND s.livemode = ids.livemode AND s.active
          AND (s.id = ids.only_subscription OR (ids.only_subscription IS NULL AND (ids.event = ANY (s.events) OR '*' = ANY (s.events))))
        ORDER BY ids.event_id, s.id
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
 * Attaches the event log and webhooks to the event dispatcher, in the dispatcher's transaction. Order,
 * invoice and site events are stored now (deliveries with them); `product.*` and `inventory.updated`
 * go to a coalescing job per (event, product), whose payload collects every store's changes while the
 * window is open: a stock change of a product 10,000 stores list is one job, its items naming the
 * stores as id lists (a few bytes a store), and one stored event per store when the window closes.
 */
export async function fanOutToWebhooks(
  tx: EntityManager,
  batch: SourceEvent[],
  coalesceWindowMs: number,
): Promise<void> {
  if (batch.length === 0) return;
  const immediate: NewWebhookEvent[] = [];
  const coalesced = new Map<string, Map<string, CoalescedItem>>();
  const at = Date.now();
  for (const e of batch) {
    const livemode = e.livemode ?? true;
    if (isCoalescedEvent(e.event)) {
      const productId = Number(e.entity_id);
      const key = `${JOBS.webhookCoalesce}:${e.event}:${productId}`;
      const variant = typeof e.data.variant_id === 'number' ? e.data.variant_id : null;
      const items = coalesced.get(key) ?? new Map<string, CoalescedItem>();
      coalesced.set(key, items);
      const group = `${variant}:${livemode}`;
      const item = items.get(group);
      if (item && 'store_ids' in item) item.store_ids.push(e.store_id);
      else
        items.set(group, {
          event: e.event,
          product_id: productId,
          variant_id: variant,
          at,
          store_ids: [e.store_id],
          ...(livemode ? {} : { livemode }),
        });
      continue;
    }
    const data = isOrderPayloadEvent(e.event) ? await orderPayload(tx, e) : e.data;
    immediate.push({
      storeId: e.store_id,
      event: e.event,
      eventKey: `${e.event}:${e.entity_id}`,
      createdAt: e.created_at,
      data,
      livemode,
      traceparent: e.traceparent,
    });
  }
  await createWebhookEvents(tx, immediate);
  if (coalesced.size > 0) {
    // In key order: concurrent dispatcher batches update shared job rows in one order, never a cycle.
    const keys = [...coalesced.keys()].sort();
    const payloads = keys.map((k) =>
      jobPayloadJson(JOBS.webhookCoalesce, [...(coalesced.get(k)?.values() ?? [])]),
    );
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
 * The window's items, one change per store named (items of the older shape name one store each). The
 * payload keeps `event` a string (src/db/job-payloads.ts); a name this version does not know cannot go
 * into a log that answers only the vocabulary's names, so its items are left out.
 */
function storeChanges(items: WebhookCoalescePayload): StoreChange[] {
  return items.flatMap((c) => {
    const event = c.event;
    if (!isEventName(event)) return [];
    const base = { event, product_id: c.product_id, variant_id: c.variant_id, at: c.at };
    if ('store_ids' in c)
      return c.store_ids.map((store_id) => ({ ...base, store_id, livemode: c.livemode ?? true }));
    return [{ ...base, store_id: c.store_id, livemode: true }];
  });
}

/**
 * A coalescing window closed: for each store whose changes it collected, one ids-only event for the
 * product, with the variant when every change of that store in the window was to that one variant.
 * Written in batches of stores, each its own transaction, so no transaction holds 10,000 stores' rows.
 */
export async function closeCoalescingWindow(
  em: EntityManager,
  items: WebhookCoalescePayload,
): Promise<number> {
  const byStore = new Map<string, StoreChange[]>();
  for (const c of storeChanges(items)) {
    const key = `${c.store_id}:${c.livemode}`;
    const mine = byStore.get(key);
    if (mine) mine.push(c);
    else byStore.set(key, [c]);
  }
  const now = new Date();
  const events: NewWebhookEvent[] = [...byStore.values()].map((mine) => {
    const first = mine[0] as StoreChange;
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
      livemode: first.livemode,
    };
  });
  let made = 0;
  for (let i = 0; i < events.length; i += COALESCE_BATCH) {
    const batch = events.slice(i, i + COALESCE_BATCH);
    made += await em.transactional((tx) => createWebhookEvents(tx, batch));
  }
  return made;
}
