import { type Actor, type AppScope, actorHasScope } from '../auth/actor.ts';
import { AppError } from '../errors.ts';
import { EVENT, EVENT_NAMES, type EventName } from '../events/vocabulary/index.ts';

/**
 * The app scope that reads each event; `null`: API keys only. Order and invoice events carry the
 * order, product events name a listed product, `inventory.updated` a change of stock. The storefront's
 * publication and the webhook test ping belong to the store's own settings, which apps never read.
 */
export const EVENT_APP_SCOPE: Record<EventName, AppScope | null> = {
  [EVENT.order.created]: 'read_orders',
  [EVENT.order.updated]: 'read_orders',
  [EVENT.order.fulfilled]: 'read_orders',
  [EVENT.order.shipped]: 'read_orders',
  [EVENT.order.completed]: 'read_orders',
  [EVENT.order.cancelled]: 'read_orders',
  [EVENT.order.held]: 'read_orders',
  [EVENT.invoice.issued]: 'read_orders',
  [EVENT.product.created]: 'read_products',
  [EVENT.product.updated]: 'read_products',
  [EVENT.product.deleted]: 'read_products',
  [EVENT.inventory.updated]: 'read_inventory',
  [EVENT.site.published]: null,
  [EVENT.site.unpublished]: null,
  [EVENT.webhook.ping]: null,
  // An export's type decides what an app may read of it, and an event names one kind: apps poll
  // GET /api/v1/exports/{id} instead (docs/decisions.md, "Bulk export").
  [EVENT.export.completed]: null,
  [EVENT.export.failed]: null,
};

/** Whether the credential may read events of this kind: API keys all, OAuth tokens by their scopes. */
export function canRead(actor: Actor, event: EventName): boolean {
  if (actor.kind === 'api_key') return true;
  const scope = EVENT_APP_SCOPE[event];
  return scope !== null && actorHasScope(actor, scope);
}

/** Refuses an event the credential may not read, saying what it lacks. */
export function refusal(event: EventName): AppError {
  const scope = EVENT_APP_SCOPE[event];
  if (scope === null) {
    return new AppError('forbidden', 'APP_TOKEN_NOT_ALLOWED', `App tokens cannot read ${event} events`);
  }
  return new AppError(
    'forbidden',
    'INSUFFICIENT_SCOPE',
    `Reading ${event} events needs the app scope ${scope}`,
    {
      extra: { required_scope: scope },
    },
  );
}

/**
 * The events a list reads: those asked for (all when none were), each one the credential may read. An
 * event asked for by name or prefix that the credential may not read is refused, never silently left
 * out; with none asked for, an app reads what its scopes allow (nothing, for an app whose scopes read
 * no event: the operation takes any app scope, so its answer is an empty log, not a refusal).
 */
export function readableTypes(actor: Actor, asked: readonly EventName[] | undefined): EventName[] {
  if (asked) {
    const refused = asked.find((e) => !canRead(actor, e));
    if (refused) throw refusal(refused);
    return [...asked];
  }
  return EVENT_NAMES.filter((e) => canRead(actor, e));
}

/** Buyer fields in an order event, left out without `read_customers` (as GET /orders/{id} does). */
const BUYER_FIELDS = ['customer', 'shipping'] as const;

/**
 * The envelope as this credential may see it: an order's buyer (name, email, phone, shipping address)
 * only with `read_customers`. Changes the parsed envelope in place.
 */
export function redacted<E extends { data: Record<string, unknown> }>(actor: Actor, envelope: E): E {
  if (actor.canReadCustomers) return envelope;
  const order = envelope.data.order;
  if (order && typeof order === 'object') {
    for (const field of BUYER_FIELDS) delete (order as Record<string, unknown>)[field];
  }
  return envelope;
}
