import { z } from 'zod';
import { boolParam, idParam, NUL_MESSAGE, noNul } from '../trpc/params.ts';
import { isWebhookEvent, WEBHOOK_EVENTS } from './events.ts';

const url = z.string().min(1).max(2048).refine(noNul, NUL_MESSAGE).meta({
  description:
    'An `https://` URL whose host resolves only to public addresses (checked now and at every delivery).',
  example: 'https://example.com/webhooks/stockless',
});

const events = z
  .array(z.string().max(64))
  .min(1, 'events must name at least one event, or be ["*"] for all')
  .max(WEBHOOK_EVENTS.length)
  .superRefine((list, ctx) => {
    list.forEach((name, i) => {
      if (name !== '*' && !isWebhookEvent(name)) {
        ctx.addIssue({
          code: 'custom',
          path: [i],
          message: `unknown event "${name}"; valid events: ${WEBHOOK_EVENTS.join(', ')}, or "*"`,
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
    example: ['order.created', 'order.shipped'],
  });

export const createWebhookInput = z.strictObject({ url, events });
export type CreateWebhookInput = z.output<typeof createWebhookInput>;

export const webhookPathInput = z.object({ id: idParam });

export const updateWebhookInput = z
  .strictObject({
    id: idParam,
    url: url.optional(),
    events: events.optional(),
    active: boolParam.optional().meta({ description: '`true` re-enables and clears the failure streak.' }),
  })
  .refine((v) => v.url !== undefined || v.events !== undefined || v.active !== undefined, {
    message: 'send at least one of url, events, active',
  });
export type UpdateWebhookInput = z.output<typeof updateWebhookInput>;

export const resendInput = z.object({ id: idParam, deliveryId: idParam });

const webhook = z
  .object({
    id: z.int(),
    url: z.string(),
    events: z.array(z.string()),
    active: z.boolean(),
    disabled_reason: z.enum(['manual', 'gone', 'dead_letters']).nullable().meta({
      description: 'Why it is inactive: set so, the endpoint answered 410, or 20 dead letters in a row.',
    }),
    failure_streak: z.int().meta({ description: 'Consecutive dead-lettered events (20 disables it).' }),
    created_at: z.string(),
    updated_at: z.string(),
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
  valid_events: z.array(z.enum(WEBHOOK_EVENTS)),
});
export const messageOutput = z.object({ message: z.string() });

const delivery = z
  .object({
    id: z.int().meta({ description: 'The delivery of one event to this subscription (use it to resend).' }),
    event: z.string(),
    event_key: z.string(),
    status: z.enum(['pending', 'succeeded', 'dead', 'discarded']),
    attempts: z.int(),
    next_attempt_at: z.string().nullable(),
    created_at: z.string(),
  })
  .meta({ id: 'WebhookDelivery' });
export const deliveryOutput = z.object({ delivery });
export type DeliverySummary = z.output<typeof delivery>;

const attempt = z
  .object({
    id: z.int(),
    delivery_id: z.int(),
    event: z.string(),
    event_key: z.string(),
    attempt: z.int().meta({ description: 'The attempt number, as in `X-Stockless-Delivery-Id`.' }),
    outcome: z.enum(['succeeded', 'failed', 'gone', 'refused']).meta({
      description: '`refused`: the URL no longer passed the public-address check, nothing was sent.',
    }),
    response_status: z.int().nullable(),
    error: z.string().nullable(),
    duration_ms: z.int(),
    next_attempt_at: z.string().nullable().meta({ description: 'When the retry is due, if one is.' }),
    created_at: z.string(),
  })
  .meta({ id: 'WebhookAttempt' });
export const attemptsOutput = z.object({ deliveries: z.array(attempt) });
export type AttemptEntry = z.output<typeof attempt>;
