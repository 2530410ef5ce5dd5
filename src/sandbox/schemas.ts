import { z } from 'zod';
import { idParam } from '../trpc/params.ts';
import { WEBHOOK_EVENTS } from '../webhooks/events.ts';

/** Every event but `webhook.ping`, which a subscription's own test call sends (POST …/webhooks/{id}/test). */
export const TRIGGERABLE_EVENTS = WEBHOOK_EVENTS.filter((e) => e !== 'webhook.ping') as Exclude<
  (typeof WEBHOOK_EVENTS)[number],
  'webhook.ping'
>[];
export type TriggerableEvent = (typeof TRIGGERABLE_EVENTS)[number];

export const triggerEventInput = z.strictObject({
  storeId: idParam,
  event: z.enum(TRIGGERABLE_EVENTS as [TriggerableEvent, ...TriggerableEvent[]]),
});
export type TriggerEventInput = z.output<typeof triggerEventInput>;
