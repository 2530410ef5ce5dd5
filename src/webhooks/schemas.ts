import { z } from 'zod';
import { EVENT, EVENT_NAMES, isEventName } from '../events/vocabulary/index.ts';
import { boolParam, idParam, intParam, NUL_MESSAGE, noNul, PG_INT_MAX } from '../trpc/params.ts';

const url = z.string().min(1).max(2048).refine(noNul, NUL_MESSAGE).meta({
  description:
    'An `https://` URL whose host resolves only to public addresses (checked now and at every delivery).',
  example: 'https://example.com/webhooks/stockless',
});

const events = z
  .array(z.string().max(64))
  .min(1, 'events must name at least one event, or be ["*"] for all')
  .max(EVENT_NAMES.length)
  .superRefine((list, ctx) => {
    list.forEach((name, i) => {
      if (name !== '*' && !isEventName(name)) {
        ctx.addIssue({
          code: 'custom',
          path: [i],
          message: `unknown event "${name}"; valid events: ${EVENT_NAMES.join(', ')}, or "*"`,
        });
      }
    });
    if (list.includes('*') && list.length > 1) {
      ctx.addIssue({ code: 'custom', message: '"*" means every event and must be the only entry' });
    }
  })
  .transform((list) => [...new Set(list)])
  .meta({
    description: 'Event names, or `["*"]` for every event.',
    example: [EVENT.order.created, EVENT.order.shipped],
  });

export const createWebhookInput = z.strictObject({ url, events });
export type CreateWebhookInput = z.output<typeof createWebhookInput>;

const subscriptionId = intParam(1, PG_INT_MAX, { description: 'The subscription id.', example: 7 });

/** The subscription in the path, for reads (whose query may carry keys of any name: they are ignored). */
export const webhookPathInput = z.object({ id: subscriptionId });
export type WebhookPathInput = z.output<typeof webhookPathInput>;

/** The same for an action with no body (test, rotate-secret): a body sent with one must be `{}`. */
export const webhookActionInput = z.strictObject({ id: subscriptionId });

/** The list takes nothing: the credential names the store. */
export const listWebhooksInput = webhookPathInput.omit({ id: true });

/** Operators name the store (internal `webhooks.list`, the CLI's `webhooks:list`). */
export const listStoreWebhooksInput = z.object({ storeId: idParam });
export type ListStoreWebhooksInput = z.output<typeof listStoreWebhooksInput>;

export const updateWebhookInput = z
  .strictObject({
    id: subscriptionId,
    url: url.optional(),
    events: events.optional(),
    active: boolParam.optional().meta({ description: '`true` re-enables and clears the failure streak.' }),
  })
  // A transform, not a refinement, so the contract's request body stays strict (see bulkInput).
  .transform((v, ctx) => {
    if (v.url === undefined && v.events === undefined && v.active === undefined)
      ctx.addIssue({ code: 'custom', message: 'send at least one of url, events, active', input: v });
    return v;
  });
export type UpdateWebhookInput = z.output<typeof updateWebhookInput>;

export const resendInput = z.strictObject({
  id: subscriptionId,
  deliveryId: intParam(1, PG_INT_MAX, {
    description: 'The delivery id (from the delivery log).',
    example: 418,
  }),
});
export type ResendInput = z.output<typeof resendInput>;

const webhook = z
  .object({
    id: z.int().meta({ example: 7 }),
    url: z.string().meta({ example: 'https://example.com/webhooks/stockless' }),
    events: z.array(z.string()).meta({ example: [EVENT.order.created, EVENT.order.shipped] }),
    active: z.boolean().meta({ example: true }),
    disabled_reason: z.enum(['manual', 'gone', 'dead_letters']).nullable().meta({
      description: 'Why it is inactive: set so, the endpoint answered 410, or 20 dead letters in a row.',
      example: null,
    }),
    failure_streak: z
      .int()
      .meta({ description: 'Consecutive dead-lettered events (20 disables it).', example: 0 }),
    livemode: z.boolean().meta({
      description:
        '`false` for a subscription made with an `sl_test_` key: it receives test events only, and live keys never see it.',
      example: true,
    }),
    created_at: z.string().meta({ example: '2026-11-01T04:00:00.000Z' }),
    updated_at: z.string().meta({ example: '2026-11-01T04:00:00.000Z' }),
  })
  .meta({ id: 'WebhookSubscription' });
export type Webhook = z.output<typeof webhook>;

const secret = z.string().meta({
  description: 'The signing secret (`whsec_…`). Shown only in this answer; store it now.',
  example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
});

export const webhookOutput = z.object({ webhook });
export const createdWebhookOutput = z.object({ webhook: webhook.extend({ secret }) });
export const rotatedWebhookOutput = z.object({ webhook, secret });
export const listWebhooksOutput = z.object({
  webhooks: z.array(webhook),
  valid_events: z.array(z.enum(EVENT_NAMES)),
});
export const messageOutput = z.object({
  message: z.string().meta({ example: 'Webhook subscription 7 deleted' }),
});

const delivery = z
  .object({
    id: z.int().meta({
      description: 'The delivery of one event to this subscription (use it to resend).',
      example: 418,
    }),
    event: z.string().meta({ example: EVENT.order.shipped }),
    event_key: z.string().meta({ example: `${EVENT.order.shipped}:9001` }),
    status: z.enum(['pending', 'succeeded', 'dead', 'discarded']).meta({
      description:
        '`dead`: every attempt failed (dead-lettered); `discarded`: dropped when the subscription was disabled.',
    }),
    attempts: z.int().meta({ example: 0 }),
    next_attempt_at: z.string().nullable().meta({ example: '2026-11-03T02:40:01.000Z' }),
    created_at: z.string().meta({ example: '2026-11-03T02:40:01.000Z' }),
  })
  .meta({ id: 'WebhookDelivery' });
export const deliveryOutput = z.object({ delivery });
export type DeliverySummary = z.output<typeof delivery>;

const attempt = z
  .object({
    id: z.int().meta({ example: 1630 }),
    delivery_id: z.int().meta({ example: 418 }),
    event: z.string().meta({ example: EVENT.order.shipped }),
    event_key: z.string().meta({ example: `${EVENT.order.shipped}:9001` }),
    attempt: z.int().meta({ description: 'The attempt number, as in `X-Stockless-Delivery-Id`.' }),
    outcome: z.enum(['succeeded', 'failed', 'gone', 'refused']).meta({
      description: '`refused`: the URL no longer passed the public-address check, nothing was sent.',
    }),
    response_status: z.int().nullable().meta({ example: 200 }),
    error: z.string().nullable().meta({ example: null }),
    duration_ms: z.int().meta({ example: 182 }),
    next_attempt_at: z
      .string()
      .nullable()
      .meta({ description: 'When the retry is due, if one is.', example: null }),
    created_at: z.string().meta({ example: '2026-11-03T02:40:01.000Z' }),
  })
  .meta({ id: 'WebhookAttempt' });
export const attemptsOutput = z.object({ deliveries: z.array(attempt) });
