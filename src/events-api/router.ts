import { router } from '../trpc/init.ts';
import { partnerProcedure } from '../trpc/procedures.ts';
import { getEvent } from './get-event.ts';
import { listEvents } from './list-events.ts';
import { getEventAnswer, getEventInput, listEventsInput, listEventsPage } from './schemas.ts';

/**
 * The event log: every event of the store for 30 days, as its webhooks deliver it. Any app scope may
 * call (`*`); which events an app reads depends on each event's kind (src/events-api/visibility.ts).
 */
export const eventsRouter = router({
  list: partnerProcedure
    .meta({
      appScope: '*',
      openapi: {
        method: 'GET',
        path: '/api/v1/events',
        operationId: 'listEvents',
        tags: ['Webhooks'],
        summary: 'The event log',
        description:
          'Every event of the store from the last 30 days, whether or not a webhook subscription wants it, each ' +
          'exactly as its webhook deliveries carry it (the same `id`): a consumer that was down catches up here ' +
          'instead of asking for resends. Newest first by default; `order=asc` reads oldest first, and following ' +
          '`next_cursor` then reads every event once, in the order the log recorded them (an event appears once ' +
          'every transaction older than it has ended, normally within milliseconds). With `wait`, an empty ' +
          '`asc` page is held until an event arrives. API keys read every event; an app token reads order and ' +
          'invoice events with read_orders, product events with read_products and inventory.updated with ' +
          "read_inventory, and sees an order's buyer only with read_customers.",
        errorResponses: {
          400: 'Invalid parameter or cursor',
          401: 'Missing or invalid credential',
          403: 'Scope refused: an event kind asked for that the app token may not read',
        },
      },
    })
    .input(listEventsInput)
    .output(listEventsPage)
    .query(({ ctx, input }) => listEvents(ctx, input)),

  get: partnerProcedure
    .meta({
      appScope: '*',
      openapi: {
        method: 'GET',
        path: '/api/v1/events/{id}',
        operationId: 'getEvent',
        tags: ['Webhooks'],
        summary: 'One event',
        description:
          "One event of the store by its id (a delivery's `id`, also sent as `X-Stockless-Event-Id`), as its " +
          'webhooks deliver it. An event is kept 30 days.',
        errorResponses: {
          400: 'Not an event id',
          401: 'Missing or invalid credential',
          403: 'Scope refused: the app token may not read this kind of event',
          404: 'No such event of this store',
        },
      },
    })
    .input(getEventInput)
    .output(getEventAnswer)
    .query(({ ctx, input }) => getEvent(ctx, input)),
});
