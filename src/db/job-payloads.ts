import { z } from 'zod';
import { EVENT } from '../events/vocabulary/index.ts';

/**
 * The payload of each Graphile task, as it sits in `graphile_worker` jobs: what the enqueuers of src
 * write and the tasks of jobs/ parse. Here, not in jobs/, because both sides import them (src never
 * imports jobs/). Every shape is one this service writes, so objects are strict: an unknown key is a
 * payload something else wrote. Shapes never change in place: a job queued by an older version may
 * still be waiting, so an old shape stays accepted (and said so) for as long as it can be queued.
 */

const id = z.int().positive();

/** The tasks woken with `{}`: what they do is read from tables (mail outbox, domain events). */
export const noPayload = z.strictObject({}).describe('{}');

/**
 * Graphile's cron adds `_cron` to the payload of each run it queues (graphile-worker cron.js,
 * makeJobForItem); the same task queued by hand gets `{}`.
 */
export const cronPayload = z
  .strictObject({ _cron: z.strictObject({ ts: z.string(), backfilled: z.boolean() }).optional() })
  .describe('{} or a cron run’s { _cron: { ts, backfilled } }');

/** Batch jobs (Graphile concatenates array payloads under one job key): every item is one product's. */
function oneProduct(items: readonly { product_id: number }[]): boolean {
  return items.every((item) => item.product_id === items[0]?.product_id);
}

/**
 * `catalogue_fanout`, queued by queueProductChange (src/catalogue/product-change-propagation.ts): one item per
 * change of the product while the job waits. `variant_ids: null` is the product as a whole.
 */
export const catalogueFanoutPayload = z
  .array(
    z.strictObject({
      product_id: id,
      event: z.enum([EVENT.product.updated, EVENT.product.deleted]),
      variant_ids: z.array(id).nullable(),
      feed: z.boolean(),
    }),
  )
  .min(1)
  .refine(oneProduct, 'every item must name the same product_id (one job per product)')
  .describe('[{ product_id, event, variant_ids, feed }], one product');

/**
 * `inventory_fanout`, queued per product by the stock trigger (product_stock_fanout, in
 * Migration20261128070000_inventory_fanout_versions: SQL, so no helper builds it) as `{ product_id }`,
 * the waiting change beside it in inventory_fanout_pending. The arrays, one item per statement,
 * are what the trigger queued before (Graphile concatenated them while the job waited).
 */
export const inventoryFanoutPayload = z
  .union([
    z
      .array(z.strictObject({ product_id: id, variant_ids: z.array(id) }))
      .min(1)
      .refine(oneProduct, 'every item must name the same product_id (one job per product)'),
    z.strictObject({ product_id: id }),
  ])
  .describe('{ product_id } from the stock trigger, or an older [{ product_id, variant_ids }]');

/**
 * `webhook_coalesce`, queued by the webhook fan-out (fanOutToWebhooks, src/webhooks/fanout.ts) per
 * (event, product): one item per change while the window is open. Since the event log keeps every
 * store's events (not only those a subscription wants), an item names the stores that changed alike as
 * `store_ids` (a batch of the dispatcher, a few bytes a store); `livemode` only when false. The older
 * item named one `store_id`, and `at` (ms) came later still: both stay readable for jobs queued before.
 * `event` stays a string, not the coalesced events' list: a kind added there must not make its own
 * windows unreadable.
 */
export const webhookCoalescePayload = z
  .array(
    z.union([
      z.strictObject({
        event: z.string().min(1),
        product_id: id,
        variant_id: id.nullable(),
        /** When the change was dispatched (ms): a store's event key takes its first, so a retried close repeats it. */
        at: z.int().nonnegative(),
        store_ids: z.array(id).min(1),
        livemode: z.boolean().optional(),
      }),
      z.strictObject({
        store_id: id,
        event: z.string().min(1),
        product_id: id,
        variant_id: id.nullable(),
        at: z.int().nonnegative().optional(),
      }),
    ]),
  )
  .describe(
    '[{ event, product_id, variant_id, at, store_ids, livemode? }] or older [{ store_id, event, product_id, variant_id, at? }]',
  );

export type WebhookCoalescePayload = z.output<typeof webhookCoalescePayload>;

/** `export_run`, queued with the export it writes (src/exports/create-export.ts): the export's row id. */
export const exportRunPayload = z.strictObject({ export_id: id }).describe('{ export_id }');
