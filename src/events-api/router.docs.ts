import { EVENT } from '../events/vocabulary/index.ts';
import { errorDoc, errorExample, type RouterDocs } from '../trpc/operation-docs.ts';
import type { eventsRouter } from './router.ts';

/** An event as the examples show it: an order shipped, as its webhook delivered it. */
const SHIPPED = {
  id: 'evt_52817',
  event: EVENT.order.shipped,
  event_key: `${EVENT.order.shipped}:9001`,
  created_at: '2026-11-03T02:40:00.000Z',
  livemode: true,
  data: {
    order: {
      id: 9001,
      order_number: 'SL-100231',
      status: 'shipped',
      order_type: 'storefront',
      channel: 'google',
      total_cents: 129800,
      currency: 'AUD',
      livemode: true,
      customer: { email: 'sam.lee@example.com', name: 'Sam Lee', phone: '+61 400 000 000' },
      items_count: 2,
      needs_attention: false,
      tracking_number: 'TRK123456789AU',
      invoice_number: 'INV-202611-000123',
      created_at: '2026-11-01T22:04:11.000Z',
      updated_at: '2026-11-03T02:40:00.000Z',
      source: null,
      subtotal_cents: 129800,
      shipping_cents: 0,
      gst_cents: 11800,
      items: [
        {
          product_id: 1042,
          variant_id: 5531,
          sku: 'OAK-TBL-180-NAT',
          name: 'Oak dining table 180 cm',
          quantity: 2,
          price_cents: 64900,
          shipped_quantity: 2,
        },
      ],
      shipping: {
        address: '12 Harbour Street',
        address2: 'Unit 4',
        city: 'Sydney',
        state: 'NSW',
        zip: '2000',
        country: 'AU',
      },
      invoice_issued_at: '2026-11-03T02:40:00.000Z',
      cancel_reason: null,
    },
  },
};

/** A coalesced, ids-only event. */
const STOCK = {
  id: 'evt_52816',
  event: EVENT.inventory.updated,
  event_key: `${EVENT.inventory.updated}:1042.1762137600000`,
  created_at: '2026-11-03T02:40:30.000Z',
  livemode: true,
  data: { product_id: 1042, variant_id: 5531 },
};

const INVALID_CURSOR = errorExample(
  'bad_request',
  'INVALID_CURSOR',
  'cursor is not a next_cursor the events list gave this store',
  { details: [{ path: 'cursor', message: 'not a next_cursor of this list' }] },
);

/** The event log's contract prose beyond its schemas (see src/trpc/operation-docs.ts). */
export const eventLogDocs: RouterDocs<typeof eventsRouter> = {
  list: {
    parameters: {
      type:
        'Only these kinds of event: names and `<group>.*` prefixes, comma-separated (`order.*,invoice.issued`). ' +
        'Absent: every kind the credential may read.',
      cursor:
        'A `next_cursor` from an earlier page: the next page in the order asked for. A cursor belongs to the store ' +
        'that got it; it is a position, so one from a `desc` page may start an `asc` walk (read `order=desc&limit=1` ' +
        'to start following the log from now).',
    },
    sampleQuery: { order: 'asc', limit: 20 },
    // The page schema is documented only (never parsed), so the example is given whole.
    responseExample: () => ({
      events: [SHIPPED, STOCK],
      next_cursor: 'ZXYxOjEyOjg4MTIzOjUyODE2.Jq3Vx0bZ4nR8wYc2LdAk9Q',
      has_more: true,
    }),
    errors: {
      '400': errorDoc(
        'A parameter is invalid (an unknown event kind, `wait` without `order=asc`, `created_lt` not after ' +
          '`created_gte`), or `cursor` is not one this list gave the store',
        INVALID_CURSOR,
        errorExample('bad_request', 'VALIDATION_FAILED', 'Invalid request: wait: only with order=asc', {
          details: [{ path: 'wait', message: 'only with order=asc' }],
        }),
      ),
      '403': errorDoc(
        'An app token asked for events its scopes do not read',
        errorExample(
          'forbidden',
          'INSUFFICIENT_SCOPE',
          'Reading order.created events needs the app scope read_orders',
          {
            required_scope: 'read_orders',
          },
        ),
        errorExample('forbidden', 'APP_TOKEN_NOT_ALLOWED', 'App tokens cannot read site.published events'),
      ),
    },
  },
  get: {
    responseExample: () => ({ event: SHIPPED }),
    errors: {
      '403': errorDoc(
        'The app token may not read this kind of event',
        errorExample(
          'forbidden',
          'INSUFFICIENT_SCOPE',
          'Reading order.shipped events needs the app scope read_orders',
          {
            required_scope: 'read_orders',
          },
        ),
      ),
      '404': errorDoc(
        'No such event of the store (events are kept 30 days)',
        errorExample('not_found', 'EVENT_NOT_FOUND', 'No event with id evt_52817'),
      ),
    },
  },
};
