import {
  EVENT,
  EVENT_NAMES,
  type EventName,
  isCoalescedEvent,
  isOrderPayloadEvent,
  type OrderPayloadEvent,
} from '../../src/events/vocabulary/index.ts';
import type { OrderStatus } from '../../src/order-status.ts';
import type { OrderDetail } from '../../src/orders/schemas.ts';
import { sampleOf } from './sample.ts';
import { type oas31, ref } from './shared.ts';

// Webhook events: OpenAPI 3.1 top-level `webhooks`, one operation per event.

const EVENT_DESCRIPTIONS: Record<EventName, string> = {
  [EVENT.order.created]: 'A new order was placed on the store.',
  [EVENT.order.updated]: 'An order changed without changing status (for example its tracking number).',
  [EVENT.order.fulfilled]: 'An order moved to `fulfilled`.',
  [EVENT.order.shipped]: 'An order moved to `shipped`; its tax invoice is issued and emailed to the buyer.',
  [EVENT.order.completed]: 'An order completed: it moved to `delivered`.',
  [EVENT.order.cancelled]: 'An order was cancelled.',
  [EVENT.order.held]:
    'A marketplace order post was held, not created (an unmapped SKU, a line Stockless supplies, or not enough ' +
    'stock). It imports when posted again once resolved.',
  [EVENT.invoice.issued]: "The buyer's tax invoice of an order was issued (`invoice_number` is set).",
  [EVENT.product.created]: 'A product was listed in the store.',
  [EVENT.product.updated]:
    'A product in the store changed: details, price, variants, or the listing (repriced, retitled, shown or ' +
    'hidden on a channel).',
  [EVENT.product.deleted]: 'A product left the store: delisted, or withdrawn from the catalogue.',
  [EVENT.inventory.updated]:
    'Stock of a product in the store changed (an order reserved or released it, the supplier updated it, goods ' +
    'were received).',
  [EVENT.site.published]: 'The storefront was published.',
  [EVENT.site.unpublished]: 'The storefront was unpublished.',
  [EVENT.webhook.ping]:
    'A test event sent by POST /api/v1/vendor/webhooks/{id}/test, to that subscription only, whatever events it ' +
    'asked for.',
  [EVENT.export.completed]:
    'A bulk export completed: its JSON Lines file is ready (GET /api/v1/exports/{id} for the signed url).',
  [EVENT.export.failed]: 'A bulk export failed; `error` says why. Create a new export to try again.',
};

/** The order's status in each order event's example. */
const ORDER_STATUS_AT: Record<OrderPayloadEvent, OrderStatus> = {
  [EVENT.order.created]: 'pending',
  [EVENT.order.updated]: 'processing',
  [EVENT.order.fulfilled]: 'fulfilled',
  [EVENT.order.shipped]: 'shipped',
  [EVENT.order.completed]: 'delivered',
  [EVENT.order.cancelled]: 'cancelled',
  [EVENT.invoice.issued]: 'shipped',
};

const WEBHOOK_PARAMETERS: Record<string, oas31.ParameterObject> = {
  WebhookEventId: {
    in: 'header',
    name: 'X-Stockless-Event-Id',
    required: true,
    description:
      'The event id, as `id` in the body: the same on every attempt and resend, and GET /api/v1/events/{id} ' +
      'answers the same envelope.',
    schema: { type: 'string', example: 'evt_52817' },
  },
  WebhookDeliveryId: {
    in: 'header',
    name: 'X-Stockless-Delivery-Id',
    required: true,
    description: '`<subscription id>:<event_key>:<attempt>`: different on every attempt.',
    schema: { type: 'string', example: `7:${EVENT.order.shipped}:9001:1` },
  },
  WebhookSignature: {
    in: 'header',
    name: 'X-Stockless-Signature',
    required: true,
    description:
      '`t=<unix seconds>,v1=<hex>`: `v1` is the lowercase hex HMAC-SHA256 of `<t>.<raw body>` keyed with the ' +
      'whole signing secret string (`whsec_…` included). Verify it over the raw body bytes, compare in ' +
      'constant time, and reject a `t` older than your tolerance (300 seconds is usual).',
    schema: {
      type: 'string',
      example: 't=1762137601,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd',
    },
  },
  StandardWebhookId: {
    in: 'header',
    name: 'webhook-id',
    required: true,
    description:
      'Standard Webhooks message id, `msg_<event id>`: the same on every attempt and resend of an event (a ' +
      'deduplication key).',
    schema: { type: 'string', example: 'msg_52817' },
  },
  StandardWebhookTimestamp: {
    in: 'header',
    name: 'webhook-timestamp',
    required: true,
    description: 'Standard Webhooks timestamp: unix seconds of this attempt.',
    schema: { type: 'string', example: '1762137601' },
  },
  StandardWebhookSignature: {
    in: 'header',
    name: 'webhook-signature',
    required: true,
    description:
      'Standard Webhooks signature `v1,<base64>`: HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw body>` ' +
      'keyed with the base64-decoded part of the secret after `whsec_`, so Standard Webhooks libraries verify it.',
    schema: { type: 'string', example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=' },
  },
  WebhookTraceparent: {
    in: 'header',
    name: 'traceparent',
    required: false,
    description:
      'W3C Trace Context of this attempt, sent when the platform runs with tracing on: a span of the trace of ' +
      'the request that caused the event (which continues the `traceparent` that request sent, if any). ' +
      'Continue it in your handler to see the delivery in that trace. Not covered by the signatures. Absent ' +
      'when tracing is off, and for `product.*` and `inventory.updated` (one event stands for many changes).',
    schema: { type: 'string', example: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
  },
};

function eventKeyDescription(event: EventName): { description: string; example: string } {
  if (isCoalescedEvent(event))
    return {
      description: '`<event>:<product_id>.<unix ms>`: one per coalescing window.',
      example: `${event}:1042.1762137630000`,
    };
  if (event === EVENT.order.held)
    return { description: `\`${event}:<id of the held post>\``, example: `${event}:311` };
  if (event.startsWith('site.')) return { description: `\`${event}:<store id>\``, example: `${event}:12` };
  if (event === EVENT.webhook.ping)
    return {
      description: `\`${event}:<subscription id>.<unix ms>\``,
      example: `${event}:7.1762137601000`,
    };
  return { description: `\`${event}:<order id>\``, example: `${event}:9001` };
}

/** The `data` of each kind of event. */
const EVENT_DATA_SCHEMAS: Record<string, oas31.SchemaObject> = {
  OrderEventData: {
    type: 'object',
    description:
      'The order as GET /api/v1/orders/{id} shows it to an API key (buyer details included), rendered when the ' +
      'event is dispatched, normally well under a second after the change. In the rare case the order can no ' +
      'longer be read then, `order` is null and `order_id` names it.',
    required: ['order'],
    properties: {
      order: { anyOf: [ref('schemas', 'Order'), { type: 'null' }] },
      order_id: { type: 'integer', description: 'Only when `order` is null.', example: 9001 },
    },
  },
  ProductEventData: {
    type: 'object',
    description:
      'Ids only, coalesced: many changes to one product within the window (30 seconds by default) arrive as one ' +
      'delivery when the window closes. Re-read the product and its stock from the API; never treat the ' +
      'delivery as the new state.',
    required: ['product_id'],
    properties: {
      product_id: { type: 'integer', description: 'The catalogue product id.', example: 1042 },
      variant_id: {
        type: 'integer',
        description: 'Present when every change in the window was to this one variant.',
        example: 5531,
      },
    },
  },
  OrderHeldEventData: {
    type: 'object',
    required: ['marketplace', 'external_order_id', 'reason', 'lines'],
    properties: {
      marketplace: { type: 'string', example: 'etsy' },
      external_order_id: { type: 'string', example: '3141592653' },
      reason: { type: 'string', enum: ['unmapped_sku', 'service_supplied', 'insufficient_stock'] },
      lines: {
        type: 'array',
        items: {
          type: 'object',
          required: ['sku', 'reason'],
          properties: {
            sku: { type: 'string', example: 'HH-VASE-01' },
            reason: { type: 'string', enum: ['unmapped_sku', 'service_supplied', 'insufficient_stock'] },
          },
        },
      },
    },
  },
  SiteEventData: {
    type: 'object',
    required: ['store_id', 'published', 'published_at'],
    properties: {
      store_id: { type: 'integer', example: 12 },
      published: { type: 'boolean', description: '`true` for site.published, `false` for site.unpublished.' },
      published_at: {
        anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }],
        description: 'When the storefront was published; null once unpublished.',
        example: '2026-11-02T09:30:00.000Z',
      },
    },
  },
  PingEventData: {
    type: 'object',
    required: ['webhook_id'],
    properties: { webhook_id: { type: 'integer', description: 'The subscription pinged.', example: 7 } },
  },
  ExportEventData: {
    type: 'object',
    required: ['export'],
    properties: {
      export: {
        type: 'object',
        description:
          'The export that ended. Its download url is not in the event: GET the export for a freshly signed one.',
        required: ['id', 'object', 'type', 'status', 'row_count', 'bytes', 'error'],
        properties: {
          id: { type: 'string', example: 'exp_42' },
          object: { type: 'string', const: 'export' },
          type: { type: 'string', enum: ['catalogue', 'listings', 'orders'] },
          status: { type: 'string', enum: ['completed', 'failed'] },
          row_count: { anyOf: [{ type: 'integer' }, { type: 'null' }], example: 2000000 },
          bytes: { anyOf: [{ type: 'integer' }, { type: 'null' }], example: 183500000 },
          error: {
            anyOf: [
              {
                type: 'object',
                required: ['code', 'message'],
                properties: { code: { type: 'string' }, message: { type: 'string' } },
              },
              { type: 'null' },
            ],
          },
        },
      },
    },
  },
};

export function addWebhookEvents(doc: oas31.OpenAPIObject) {
  doc.components ??= {};
  doc.components.schemas ??= {};
  Object.assign(doc.components.schemas, EVENT_DATA_SCHEMAS);
  doc.components.parameters = { ...doc.components.parameters, ...WEBHOOK_PARAMETERS };

  doc.webhooks = {};
  for (const event of EVENT_NAMES) {
    const payload = payloadOf(event);
    const example = exampleOf(doc, event, payload);
    doc.webhooks[event] = {
      post: {
        operationId: `${event.replace(/\.(\w)/g, (_, c: string) => c.toUpperCase()).replace(/_(\w)/g, (_, c: string) => c.toUpperCase())}Webhook`,
        tags: ['Webhooks'],
        summary: event,
        description:
          `${EVENT_DESCRIPTIONS[event] ?? ''} Sent as a signed POST to every active subscription whose \`events\` ` +
          `name it (or \`*\`).${isCoalescedEvent(event) ? ' Coalesced per product and ids-only.' : ''}`,
        security: [],
        parameters: [
          {
            in: 'header',
            name: 'X-Stockless-Event',
            required: true,
            description: 'The event name, as `event` in the body.',
            schema: { type: 'string', const: event, example: event },
          },
          ...Object.keys(WEBHOOK_PARAMETERS).map((p) => ref('parameters', p)),
        ],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: payload, example } },
        },
        responses: {
          '200': {
            description:
              'Any 2xx within 10 seconds acknowledges the delivery; the body is ignored. Redirects are not followed.',
          },
          '410': { description: 'Gone: the subscription is disabled at once.' },
          default: {
            description:
              'Any other answer, or none within 10 seconds: retried after 1m, 5m, 30m, 2h and 12h, then ' +
              'dead-lettered (the store owner is emailed).',
          },
        },
      },
    };
  }
}

function dataOf(event: EventName) {
  if (isOrderPayloadEvent(event)) return 'OrderEventData';
  if (isCoalescedEvent(event)) return 'ProductEventData';
  if (event === EVENT.order.held) return 'OrderHeldEventData';
  if (event.startsWith('site.')) return 'SiteEventData';
  if (event.startsWith('export.')) return 'ExportEventData';
  return 'PingEventData';
}

/** The body of a delivery of `event`. */
function payloadOf(event: EventName): oas31.SchemaObject {
  const key = eventKeyDescription(event);
  return {
    type: 'object',
    description: `The body of a \`${event}\` delivery.`,
    required: ['id', 'event', 'event_key', 'created_at', 'livemode', 'data'],
    properties: {
      id: {
        type: 'string',
        description:
          'The event id (`evt_` and digits), the same on every attempt and resend: GET /api/v1/events/{id} answers ' +
          'this envelope, and GET /api/v1/events lists every event of the last 30 days.',
        example: 'evt_52817',
      },
      event: { type: 'string', const: event },
      event_key: {
        type: 'string',
        description: `${key.description} Key your processing on it: deliveries can arrive out of order and, rarely, more than once.`,
        example: key.example,
      },
      created_at: {
        type: 'string',
        format: 'date-time',
        description: 'When the event happened.',
        example: '2026-11-03T02:40:00.000Z',
      },
      livemode: {
        type: 'boolean',
        description:
          '`true` for live data, `false` for a test-mode event (an `sl_test_` key reads only those).',
        example: true,
      },
      data: ref('schemas', dataOf(event)),
    },
  };
}

/** A delivery's body as sampled from its schema (`payloadOf`). */
interface Delivery {
  id: string;
  event: EventName;
  event_key: string;
  created_at: string;
  livemode: boolean;
  data: unknown;
}

/** A sample body of `event`, made consistent with its event (an order's status, an unpublished site). */
function exampleOf(doc: oas31.OpenAPIObject, event: EventName, payload: oas31.SchemaObject): Delivery {
  // The sample follows the payload schema written above, so it has the payload's shape.
  const example = sampleOf(doc, payload) as Delivery;
  if (event === EVENT.site.unpublished) example.data = { store_id: 12, published: false, published_at: null };
  if (isOrderPayloadEvent(event)) orderAt(event, example.data as OrderEventData);
  return example;
}

/** OrderEventData as sampled: the Order schema's example order, and `order_id` beside it. */
interface OrderEventData {
  order: OrderDetail;
  order_id?: number;
}

/** The sampled order in the status the event reports, unshipped before it ships. */
function orderAt(event: OrderPayloadEvent, data: OrderEventData) {
  delete data.order_id;
  const status = ORDER_STATUS_AT[event];
  Object.assign(data.order, { status });
  if (status !== 'shipped' && status !== 'delivered') {
    Object.assign(data.order, {
      tracking_number: null,
      invoice_number: null,
      invoice_issued_at: null,
    });
    for (const item of data.order.items) item.shipped_quantity = 0;
  }
}
