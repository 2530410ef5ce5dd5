/** The fifteen events of the contract, in the order the list answer shows them. */
export const WEBHOOK_EVENTS = [
  'order.created',
  'order.updated',
  'order.fulfilled',
  'order.shipped',
  'order.completed',
  'order.cancelled',
  'order.held',
  'invoice.issued',
  'product.created',
  'product.updated',
  'product.deleted',
  'inventory.updated',
  'site.published',
  'site.unpublished',
  'webhook.ping',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** Events whose `data` is `{ order }`: the order as the store reads it. */
export const ORDER_PAYLOAD_EVENTS: readonly string[] = [
  'order.created',
  'order.updated',
  'order.fulfilled',
  'order.shipped',
  'order.completed',
  'order.cancelled',
  'invoice.issued',
];

/** Ids-only events, coalesced per product within the window. */
export const COALESCED_EVENTS: readonly string[] = [
  'product.created',
  'product.updated',
  'product.deleted',
  'inventory.updated',
];

export function isWebhookEvent(name: string): name is WebhookEvent {
  return (WEBHOOK_EVENTS as readonly string[]).includes(name);
}
