/**
 * The events of the contract: every name, and the `data` each carries, in one place. The outbox, the
 * dispatcher, the webhook fan-out, the event log, the sandbox trigger and the contract read names from
 * here (`EVENT.order.created`), never spell them: test/events/event-vocabulary.test.ts fails on a name written
 * as a string anywhere else in src/, server/, jobs/ or client/src.
 *
 * It imports nothing, so every layer may read it, the bottom's job payloads (src/db) included: that is
 * why it is a folder of its own, since src/events itself builds on src/db. The order an order event
 * carries is the orders domain's type, which this layer may not import: the payload map takes it as a
 * parameter (`EventPayloads<OrderDetail>` above the events layer).
 */

/** Why a marketplace post was held, per line and for the whole post (the external-orders schema's enum). */
export type HoldReason = 'unmapped_sku' | 'service_supplied' | 'insufficient_stock';

/** `data` of an order or invoice event: the order as the store reads it, or its id when it can no longer be read. */
export type OrderEventData<Order = unknown> = {
  order: Order | null;
  order_id?: number;
};

/** `data` of a coalesced, ids-only event (`variant_id` when every change of the window was to that variant). */
export type IdsOnlyEventData = {
  product_id: number;
  variant_id?: number;
};

export type OrderHeldEventData = {
  marketplace: string;
  external_order_id: string;
  reason: HoldReason;
  lines: { sku: string; reason: HoldReason }[];
};

export type SiteEventData = {
  store_id: number;
  published: boolean;
  published_at: string | null;
};

export type PingEventData = {
  webhook_id: number;
};

/** `data` of an export event: which export ended and how (GET /api/v1/exports/{id} for its signed url). */
export type ExportEventData = {
  export: {
    id: string;
    object: 'export';
    type: 'catalogue' | 'listings' | 'orders';
    status: 'completed' | 'failed';
    row_count: number | null;
    bytes: number | null;
    error: { code: string; message: string } | null;
  };
};

/** Each event's delivered `data` (webhook body and event log alike), by name. */
export type EventPayloads<Order = unknown> = {
  'order.created': OrderEventData<Order>;
  'order.updated': OrderEventData<Order>;
  'order.fulfilled': OrderEventData<Order>;
  'order.shipped': OrderEventData<Order>;
  'order.completed': OrderEventData<Order>;
  'order.cancelled': OrderEventData<Order>;
  'order.held': OrderHeldEventData;
  'invoice.issued': OrderEventData<Order>;
  'product.created': IdsOnlyEventData;
  'product.updated': IdsOnlyEventData;
  'product.deleted': IdsOnlyEventData;
  'inventory.updated': IdsOnlyEventData;
  'site.published': SiteEventData;
  'site.unpublished': SiteEventData;
  'webhook.ping': PingEventData;
  'export.completed': ExportEventData;
  'export.failed': ExportEventData;
};

export type EventName = keyof EventPayloads;

/** The name of every event, grouped as the names read (`EVENT.product.updated`): how code says one. */
export const EVENT = {
  order: {
    created: 'order.created',
    updated: 'order.updated',
    fulfilled: 'order.fulfilled',
    shipped: 'order.shipped',
    completed: 'order.completed',
    cancelled: 'order.cancelled',
    held: 'order.held',
  },
  invoice: { issued: 'invoice.issued' },
  product: { created: 'product.created', updated: 'product.updated', deleted: 'product.deleted' },
  inventory: { updated: 'inventory.updated' },
  site: { published: 'site.published', unpublished: 'site.unpublished' },
  webhook: { ping: 'webhook.ping' },
  export: { completed: 'export.completed', failed: 'export.failed' },
} as const satisfies Record<string, Record<string, EventName>>;

/** The events of the contract, in the order the list answer (and the contract) shows them. */
export const EVENT_NAMES = [
  EVENT.order.created,
  EVENT.order.updated,
  EVENT.order.fulfilled,
  EVENT.order.shipped,
  EVENT.order.completed,
  EVENT.order.cancelled,
  EVENT.order.held,
  EVENT.invoice.issued,
  EVENT.product.created,
  EVENT.product.updated,
  EVENT.product.deleted,
  EVENT.inventory.updated,
  EVENT.site.published,
  EVENT.site.unpublished,
  EVENT.webhook.ping,
  EVENT.export.completed,
  EVENT.export.failed,
] as const;

// Compile-time: the ordered list names every event of the payload map, and nothing else.
type NoneMissing<T extends never> = T;
export type EveryEventListed = NoneMissing<Exclude<EventName, (typeof EVENT_NAMES)[number]>>;

/** Events whose `data` is `{ order }`: the order as the store reads it, rendered when dispatched. */
export const ORDER_PAYLOAD_EVENTS = [
  EVENT.order.created,
  EVENT.order.updated,
  EVENT.order.fulfilled,
  EVENT.order.shipped,
  EVENT.order.completed,
  EVENT.order.cancelled,
  EVENT.invoice.issued,
] as const satisfies readonly EventName[];
export type OrderPayloadEvent = (typeof ORDER_PAYLOAD_EVENTS)[number];

/** Ids-only events, coalesced per product within the window. */
export const COALESCED_EVENTS = [
  EVENT.product.created,
  EVENT.product.updated,
  EVENT.product.deleted,
  EVENT.inventory.updated,
] as const satisfies readonly EventName[];
export type CoalescedEvent = (typeof COALESCED_EVENTS)[number];

/** The events of a listing change, written per store by the listings' own statements. */
export const PRODUCT_EVENTS = [
  EVENT.product.created,
  EVENT.product.updated,
  EVENT.product.deleted,
] as const satisfies readonly EventName[];
export type ProductEvent = (typeof PRODUCT_EVENTS)[number];

/** The events a bulk export ends with (src/exports/): a real test export makes them in test mode. */
export const EXPORT_EVENTS = [
  EVENT.export.completed,
  EVENT.export.failed,
] as const satisfies readonly EventName[];
export type ExportEvent = (typeof EXPORT_EVENTS)[number];

/**
 * Events a store can make happen in test mode: all but the ping, which a subscription's own test call
 * sends, and the export events, which a test export itself sends.
 */
export const TRIGGERABLE_EVENTS = EVENT_NAMES.filter(
  (e): e is Exclude<EventName, typeof EVENT.webhook.ping | ExportEvent> =>
    e !== EVENT.webhook.ping && !isIn(EXPORT_EVENTS, e),
);
export type TriggerableEvent = (typeof TRIGGERABLE_EVENTS)[number];

/**
 * What the outbox records as an event's `data`: an order event names its order (the fan-out renders
 * the order when it dispatches); every other event records the data it delivers.
 */
export type RecordedPayloads = {
  [N in EventName]: N extends OrderPayloadEvent ? { order_id: number } : EventPayloads[N];
};

function isIn<T extends string>(list: readonly T[], name: string): name is T {
  return (list as readonly string[]).includes(name);
}

export function isEventName(name: string): name is EventName {
  return isIn(EVENT_NAMES, name);
}

export function isOrderPayloadEvent(name: string): name is OrderPayloadEvent {
  return isIn(ORDER_PAYLOAD_EVENTS, name);
}

export function isCoalescedEvent(name: string): name is CoalescedEvent {
  return isIn(COALESCED_EVENTS, name);
}
