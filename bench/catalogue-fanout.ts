import { type Config, domainSettingsOf } from '../server/config.ts';
import { createLogger } from '../server/logger.ts';
import type { Orm } from '../server/orm.ts';
import { runProductFanout } from '../src/catalogue/product-change-propagation.ts';
import { updateProduct } from '../src/catalogue/update-product.ts';
import { JOBS, parseJobPayload } from '../src/db/jobs.ts';
import { rows, sql } from '../src/db/sql.ts';
import { dispatchPendingEvents } from '../src/events/dispatch.ts';
import { closeCoalescingWindow, webhookFanOut } from '../src/webhooks/fanout.ts';
import { median, round } from './lib.ts';

const STORES = 10_000;
const ROUNDS = 5;

export interface FanoutFigures {
  stores: number;
  change_ms: { p50: number; spread: [number, number] };
  api_fanout_ms: { p50: number; spread: [number, number] };
  raw_fanout_ms: { p50: number; spread: [number, number] };
  ratio: number;
  longest_batch_ms: number;
  events_per_second: number;
  /** The webhook side, each store subscribed: dispatch into one coalescing job, then its close. */
  webhooks: { stores: number; dispatch_ms: number; close_ms: number; deliveries: number };
}

const spread = (xs: number[]): [number, number] => [round(Math.min(...xs)), round(Math.max(...xs))];

/**
 * A catalogue change to a product that 10,000 stores list: the change's own transaction, then the
 * batched fan-out (1,000 stores a transaction: events and feed positions), against a raw baseline
 * that writes the same rows for every store in one statement and one transaction. Medians of five
 * alternating rounds; the longest batch is what any other writer could wait behind.
 */
export async function benchCatalogueFanout(orm: Orm, config: Config): Promise<FanoutFigures> {
  const em = () => orm.em.fork();
  // The operator's context for the change, built once so the timed change holds only its own work.
  const settings = domainSettingsOf(config);
  const log = createLogger('silent');
  const operator = () => ({ em: em(), settings, log });
  // Stores of their own, so the figure does not depend on what other parts built.
  await rows(
    em(),
    sql`INSERT INTO stores (name, slug)
      SELECT 'Fan-out ' || g, 'fanout-' || g FROM generate_series(1, ${STORES}) g
      ON CONFLICT (slug) DO NOTHING`,
  );
  const [product] = await rows<{ id: number; retail: number }>(
    em(),
    sql`SELECT id, retail_price_cents AS retail FROM products WHERE active AND owner_store_id IS NULL ORDER BY id LIMIT 1`,
  );
  if (!product) throw new Error('the fan-out bench needs a catalogue product');
  await rows(
    em(),
    sql`INSERT INTO listings (store_id, product_id)
      SELECT id, ${product.id} FROM stores WHERE slug LIKE 'fanout-%' ORDER BY id
      ON CONFLICT (store_id, product_id) DO UPDATE SET deleted_at = NULL`,
  );
  const [{ n: stores } = { n: 0 }] = await rows<{ n: number }>(
    em(),
    sql`SELECT count(*)::integer AS n FROM listings WHERE product_id = ${product.id} AND deleted_at IS NULL`,
  );
  const clean = () =>
    rows(
      em(),
      sql`WITH gone AS (DELETE FROM domain_events WHERE entity_id = ${product.id} AND dispatched_at IS NULL)
        SELECT graphile_worker.remove_job(${`catalogue_fanout:${product.id}`})`,
    );
  await clean();

  const change: number[] = [];
  const api: number[] = [];
  const raw: number[] = [];
  let longest = 0;
  const payload = [{ product_id: product.id, event: 'product.updated', variant_ids: null, feed: true }];
  const runApi = async (i: number) => {
    const t0 = performance.now();
    await updateProduct(operator(), {
      productId: product.id,
      retail_price_cents: product.retail + 1 + (i % 2),
    });
    const t1 = performance.now();
    // What the catalogue_fanout job runs; called here so the worker's polling is not in the figure.
    await runProductFanout(em(), payload, (_n, ms) => {
      longest = Math.max(longest, ms);
    });
    const t2 = performance.now();
    change.push(t1 - t0);
    api.push(t2 - t1);
  };
  const runRaw = async () => {
    const t0 = performance.now();
    await em().transactional((tx) =>
      rows(
        tx,
        sql`WITH stores AS (
            SELECT store_id FROM listings WHERE product_id = ${product.id} AND deleted_at IS NULL
          ), feed AS (
            INSERT INTO inventory_feed (store_id, product_id)
            SELECT store_id, ${product.id}::integer FROM stores
            ON CONFLICT (store_id, product_id) DO UPDATE
              SET xid = pg_current_xact_id(), seq = nextval('inventory_feed_seq')
          )
          INSERT INTO domain_events (store_id, event, entity_id, data)
          SELECT store_id, 'product.updated', ${product.id}, ${JSON.stringify({ product_id: product.id })}::jsonb
          FROM stores`,
      ),
    );
    raw.push(performance.now() - t0);
  };
  // Warm-up, then alternate which side goes first.
  await runApi(0);
  await runRaw();
  change.length = 0;
  api.length = 0;
  raw.length = 0;
  longest = 0;
  for (let i = 0; i < ROUNDS; i++) {
    if (i % 2 === 0) {
      await runApi(i);
      await clean();
      await runRaw();
    } else {
      await runRaw();
      await clean();
      await runApi(i);
    }
    await clean();
  }
  const apiP50 = median(api);
  const webhooks = await webhookSide(orm, product.id, payload);
  return {
    stores,
    change_ms: { p50: round(median(change)), spread: spread(change) },
    api_fanout_ms: { p50: round(apiP50), spread: spread(api) },
    raw_fanout_ms: { p50: round(median(raw)), spread: spread(raw) },
    ratio: round(median(raw) / apiP50),
    longest_batch_ms: round(longest),
    events_per_second: Math.round(stores / (apiP50 / 1000)),
    webhooks,
  };
}

/**
 * The same change reaching the stores' webhooks: every fan-out store gets a subscription, the
 * dispatcher turns the 10,000 events into one coalescing job for the product (batches of 1,000 events
 * a transaction), and the window's close writes the 10,000 webhook events and deliveries (1,000 stores
 * a transaction). No worker runs, so nothing is sent: this is the enqueueing alone.
 */
async function webhookSide(orm: Orm, productId: number, payload: unknown[]) {
  const em = () => orm.em.fork();
  await rows(
    em(),
    sql`INSERT INTO webhook_subscriptions (store_id, url, events, secret_encrypted)
      SELECT s.id, 'https://hooks-fanout.test/hook', ARRAY['product.updated'], 'unused'
      FROM stores s WHERE s.slug LIKE 'fanout-%'
        AND NOT EXISTS (SELECT 1 FROM webhook_subscriptions w WHERE w.store_id = s.id)`,
  );
  await rows(em(), sql`UPDATE domain_events SET dispatched_at = now() WHERE dispatched_at IS NULL`);
  await runProductFanout(em(), payload);
  const t0 = performance.now();
  await dispatchPendingEvents(em(), webhookFanOut(30_000));
  const t1 = performance.now();
  const [job] = await rows<{ payload: unknown }>(
    em(),
    sql`SELECT payload FROM graphile_worker._private_jobs WHERE key = ${`webhook_coalesce:product.updated:${productId}`}`,
  );
  const deliveries = await closeCoalescingWindow(
    em(),
    parseJobPayload(JOBS.webhookCoalesce, job?.payload ?? []),
  );
  const t2 = performance.now();
  // Nothing is sent: the deliveries and their jobs go, and the subscriptions stay for the next run.
  await rows(
    em(),
    sql`WITH gone AS (DELETE FROM webhook_events WHERE store_id IN (SELECT id FROM stores WHERE slug LIKE 'fanout-%'))
      SELECT graphile_worker.remove_job(${`webhook_coalesce:product.updated:${productId}`})`,
  );
  const [{ n: stores } = { n: 0 }] = await rows<{ n: number }>(
    em(),
    sql`SELECT count(*)::integer AS n FROM webhook_subscriptions w JOIN stores s ON s.id = w.store_id
      WHERE s.slug LIKE 'fanout-%'`,
  );
  return { stores, dispatch_ms: round(t1 - t0), close_ms: round(t2 - t1), deliveries };
}
