import { z } from 'zod';
import { EVENT, EVENT_NAMES, type EventName } from '../events/vocabulary/index.ts';
import { described, intParam, isoDateTimeParam, NUL_MESSAGE, noNul } from '../trpc/params.ts';

/** The event kinds a `<group>.*` prefix names: `order.*` → every `order.` event. */
const GROUPS = [...new Set(EVENT_NAMES.map((e) => e.split('.')[0] as string))];

/**
 * `type`: event names and `<group>.*` prefixes, comma-separated, in the order of the known events
 * and without repeats; an unknown name or prefix is a 400 naming it.
 */
function eventTypes(value: string, ctx: z.RefinementCtx): EventName[] {
  const asked = value
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
  const wanted = new Set<EventName>();
  for (const t of asked) {
    const prefix = t.endsWith('.*') ? t.slice(0, -2) : undefined;
    const named =
      prefix !== undefined
        ? EVENT_NAMES.filter((e) => GROUPS.includes(prefix) && e.startsWith(`${prefix}.`))
        : EVENT_NAMES.filter((e) => e === t);
    if (named.length === 0) {
      ctx.addIssue({
        code: 'custom',
        message: `unknown event "${t}"; give event names (${EVENT_NAMES.join(', ')}) or prefixes (${GROUPS.map((g) => `${g}.*`).join(', ')})`,
      });
      return [];
    }
    for (const e of named) wanted.add(e);
  }
  if (wanted.size === 0) {
    ctx.addIssue({ code: 'custom', message: 'name at least one event, or leave type out for every event' });
    return [];
  }
  return EVENT_NAMES.filter((e) => wanted.has(e));
}

const time = (description: string) =>
  isoDateTimeParam().meta({ description, example: '2026-11-01T00:00:00Z' }).optional();

export const listEventsInput = z.object({
  type: z
    .string()
    .max(1000)
    .refine(noNul, NUL_MESSAGE)
    .transform(eventTypes)
    .meta({
      override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
        for (const k of Object.keys(jsonSchema)) delete jsonSchema[k];
        Object.assign(jsonSchema, { type: 'string', maxLength: 1000, example: 'order.*,invoice.issued' });
      },
    })
    .optional(),
  created_gte: time('Only events created at or after this time (ISO 8601 with an offset or Z).'),
  created_lt: time('Only events created before this time (ISO 8601 with an offset or Z).'),
  limit: intParam(1, 100, described('Events per page, 1 to 100; default 20.')).optional(),
  order: z
    .enum(['desc', 'asc'])
    .default('desc')
    .meta(described('`desc`: newest first (the default); `asc`: oldest first, to follow the log.')),
  cursor: z
    .string()
    .max(300)
    .optional()
    .meta(described('A next_cursor from an earlier page; absent = from the start.')),
  wait: intParam(
    0,
    30,
    described(
      'Only with order=asc: seconds (0 to 30) to hold the request while the page would be empty, answering as ' +
        'soon as an event arrives. A long poll; default 0.',
    ),
  ).optional(),
});
export type ListEventsInput = z.output<typeof listEventsInput>;

/** The order each kind of event carries, and the other payloads, as the webhooks section of the contract declares them. */
const DATA_SCHEMAS = [
  'OrderEventData',
  'ProductEventData',
  'OrderHeldEventData',
  'SiteEventData',
  'PingEventData',
  'ExportEventData',
];

/** An event's envelope: the body of its webhook deliveries, byte for byte (parsed). */
export const eventEnvelope = z
  .object({
    id: z.string().meta({ description: 'The event id, `evt_` and digits.', example: 'evt_52817' }),
    event: z.enum(EVENT_NAMES).meta({ example: EVENT.order.shipped }),
    event_key: z.string().meta({
      description:
        '`<event>:<entity id>` (coalesced events: `<event>:<product_id>.<unix ms>`): key your processing on it.',
      example: `${EVENT.order.shipped}:9001`,
    }),
    created_at: z.iso
      .datetime()
      .meta({ description: 'When the event happened.', example: '2026-11-03T02:40:00.000Z' }),
    livemode: z.boolean().meta({
      description:
        '`true` for live data, `false` for a test-mode event (an `sl_test_` key reads only those).',
      example: true,
    }),
    data: z.record(z.string(), z.unknown()).meta({
      override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
        for (const k of Object.keys(jsonSchema)) delete jsonSchema[k];
        Object.assign(jsonSchema, {
          description:
            "The event's data, as its webhook delivers it (see the webhooks section): `{ order }` for order and invoice " +
            'events (buyer fields left out without the read_customers app scope), ids only for product and inventory ' +
            'events.',
          anyOf: DATA_SCHEMAS.map((name) => ({ $ref: `#/components/schemas/${name}` })),
        });
      },
    }),
  })
  .meta({
    id: 'EventEnvelope',
    description: 'An event of the store, exactly as its webhook deliveries carry it.',
  });
export type EventEnvelope = z.output<typeof eventEnvelope>;

/**
 * A schema as the contract (OpenAPI document, tRPC client types) without tRPC parsing the answer again:
 * an event is answered as its stored envelope, the bytes its deliveries sent, and a parse would strip or
 * reorder what it does not know. What holds the shape instead: the envelope is written in one place
 * (createWebhookEvents), and test/events/events-api.test.ts parses real pages with `listEventsOutput`.
 */
function documentedOnly<T extends z.ZodType>(schema: T): T {
  return Object.create(schema, { parse: { value: <V>(value: V): V => value } });
}

export const listEventsOutput = z.object({
  events: z.array(eventEnvelope),
  next_cursor: z
    .string()
    .meta(
      described(
        'Always present: the position after the last event of the page (or the one given, when the page is empty). ' +
          'Pass it back as cursor, with either order.',
      ),
    ),
  has_more: z.boolean().meta(described('More events follow in this order right now.')),
});
export const listEventsPage = documentedOnly(listEventsOutput);

export const getEventInput = z.object({
  id: z
    .string()
    .regex(/^evt_[1-9]\d{0,17}$/, 'must be an event id (evt_ and digits)')
    .meta({ description: 'The event id.', example: 'evt_1' }),
});
export type GetEventInput = z.output<typeof getEventInput>;

export const getEventOutput = z.object({ event: eventEnvelope });
export const getEventAnswer = documentedOnly(getEventOutput);
