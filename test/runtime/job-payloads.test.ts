import { type JobHelpers, Logger, makeWorkerUtils, runOnce } from 'graphile-worker';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTaskList } from '../../jobs/tasks.ts';
import { queueProductChange } from '../../src/catalogue/product-change-propagation.ts';
import { enqueueJob, JOBS, type JobName, MalformedJobPayload, parseJobPayload } from '../../src/db/jobs.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { enqueueDispatch, recordEvents } from '../../src/events/outbox.ts';
import { queueMail } from '../../src/mail/outbox.ts';
import { sendQueuedMail } from '../../src/mail/smtp-sender.ts';
import { scheduleNextWake } from '../../src/webhooks/delivery/next-wake.ts';
import { wakeDeliveries } from '../../src/webhooks/delivery/wake-deliveries.ts';
import { fanOutToWebhooks } from '../../src/webhooks/fanout.ts';
import { startTestApp, TEST_MAIL, TEST_WEBHOOKS, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';

/**
 * Job payloads (src/db/job-payloads.ts): every enqueuer of the service writes what its task's schema
 * reads, as stored in `graphile_worker` by the real code paths, and a task refuses a payload its
 * schema does not, with a message naming the job and the field, before it touches anything.
 */

let app: TestApp;
let storeId: number;
let productId: number;
let variantIds: number[];

beforeAll(async () => {
  app = await startTestApp();
  storeId = (await app.createStore('Job Payloads')).id;
  const fx = fixtures(app.em());
  productId = await fx.product({ supplierId: await fx.supplier(), stock: [3, 4] });
  variantIds = (
    await rows<{ id: number }>(
      app.em(),
      sql`SELECT id FROM product_variants WHERE product_id = ${productId} ORDER BY id`,
    )
  ).map((v) => v.id);
  // Any https URL: nothing here is delivered, the subscription only makes the store want the events.
  await rows(
    app.em(),
    sql`INSERT INTO webhook_subscriptions (store_id, url, events, secret_encrypted, next_due_at)
      VALUES (${storeId}, 'https://hooks.example/jobs', ARRAY['product.updated'], 'unused', now() + interval '1 hour')`,
  );
});
afterAll(async () => {
  await app.close();
});

interface StoredJob {
  task: string;
  key: string | null;
  payload: unknown;
  later: boolean;
}

const NAMES: readonly string[] = Object.values(JOBS);

async function clearJobs(): Promise<void> {
  await rows(
    app.em(),
    sql`SELECT graphile_worker.complete_jobs(COALESCE(array_agg(id), '{}')) FROM graphile_worker.jobs`,
  );
}

/** The jobs in the queue, each payload parsed by its task's schema (a refusal fails the test). */
async function storedJobs(): Promise<StoredJob[]> {
  const jobs = await rows<StoredJob>(
    app.em(),
    sql`SELECT j.task_identifier AS task, j.key, p.payload, j.run_at > now() + interval '1 minute' AS later
      FROM graphile_worker.jobs j JOIN graphile_worker._private_jobs p ON p.id = j.id ORDER BY j.id`,
  );
  for (const job of jobs) {
    expect(NAMES).toContain(job.task);
    expect(() => parseJobPayload(job.task as JobName, job.payload), job.task).not.toThrow();
  }
  return jobs;
}

/** What `enqueue` leaves in an empty queue, checked by storedJobs. */
async function enqueued(enqueue: () => Promise<unknown>): Promise<StoredJob[]> {
  await clearJobs();
  await enqueue();
  return storedJobs();
}

const inTransaction = (fn: Parameters<ReturnType<TestApp['em']>['transactional']>[0]) =>
  app.em().transactional(fn);

describe('what the enqueuers write, each task’s schema reads', () => {
  it('send_mail: a queued message, and the sender’s retry wake-up', async () => {
    const mail = {
      storeId,
      kind: 'webhook_disabled',
      to: 'ops@example.test',
      subject: 'S',
      text: 'T',
    } as const;
    expect(await enqueued(() => inTransaction((tx) => queueMail(tx, mail)))).toEqual([
      { task: JOBS.sendMail, key: JOBS.sendMail, payload: {}, later: false },
    ]);
    // A message backing off: the sender's run finds nothing due and wakes itself for it.
    await rows(app.em(), sql`UPDATE mail_outbox SET next_attempt_at = now() + interval '1 hour'`);
    expect(await enqueued(() => sendQueuedMail(app.em(), TEST_MAIL))).toEqual([
      { task: JOBS.sendMail, key: JOBS.sendMail, payload: {}, later: true },
    ]);
  });

  it('dispatch_events: a wake-up, alone and with recorded events', async () => {
    const wake = { task: JOBS.dispatchEvents, key: JOBS.dispatchEvents, payload: {}, later: false };
    expect(await enqueued(() => inTransaction((tx) => enqueueDispatch(tx)))).toEqual([wake]);
    const events = [{ storeId, event: 'order.created' as const, entityId: 1 }];
    expect(await enqueued(() => inTransaction((tx) => recordEvents(tx, events)))).toEqual([wake]);
  });

  it('deliver_webhooks: the wake-up, the next-due wake-up and the worker’s start (Graphile’s addJob)', async () => {
    expect(await enqueued(() => inTransaction((tx) => wakeDeliveries(tx)))).toEqual([
      { task: JOBS.deliverWebhooks, key: JOBS.deliverWebhooks, payload: {}, later: false },
    ]);
    const [next] = await enqueued(() => scheduleNextWake(app.em()));
    expect(next).toMatchObject({ task: JOBS.deliverWebhooks, payload: {}, later: true });
    expect(next?.key).toMatch(new RegExp(`^${JOBS.deliverWebhooks}:\\d+$`));
    const utils = await makeWorkerUtils({ connectionString: app.databaseUrl });
    try {
      const spec = { jobKey: JOBS.deliverWebhooks, jobKeyMode: 'replace' } as const;
      expect(await enqueued(() => enqueueJob(utils, JOBS.deliverWebhooks, {}, spec))).toEqual([
        { task: JOBS.deliverWebhooks, key: JOBS.deliverWebhooks, payload: {}, later: false },
      ]);
    } finally {
      await utils.release();
    }
  });

  it('catalogue_fanout: two changes of a product, merged under its key', async () => {
    const jobs = await enqueued(() =>
      inTransaction(async (tx) => {
        await queueProductChange(tx, { productId, event: 'product.updated', variantIds: [1], feed: true });
        await queueProductChange(tx, { productId, event: 'product.deleted', feed: false });
      }),
    );
    expect(jobs).toEqual([
      {
        task: JOBS.catalogueFanout,
        key: `${JOBS.catalogueFanout}:${productId}`,
        payload: [
          { product_id: productId, event: 'product.updated', variant_ids: [1], feed: true },
          { product_id: productId, event: 'product.deleted', variant_ids: null, feed: false },
        ],
        later: false,
      },
    ]);
  });

  it('inventory_fanout: the stock trigger, twice for one product, one fixed payload; the variant waits beside it', async () => {
    const [first, second] = variantIds;
    const pending = () =>
      rows<{ variant_id: number | null }>(
        app.em(),
        sql`SELECT variant_id FROM inventory_fanout_pending WHERE product_id = ${productId}`,
      );
    await rows(app.em(), sql`DELETE FROM inventory_fanout_pending WHERE product_id = ${productId}`);
    const jobs = await enqueued(async () => {
      await rows(app.em(), sql`UPDATE product_variants SET stock_quantity = 9 WHERE id = ${first}`);
      expect(await pending()).toEqual([{ variant_id: first }]);
      await rows(
        app.em(),
        sql`UPDATE product_variants SET stock_quantity = 8 WHERE product_id = ${productId}`,
      );
    });
    expect(jobs).toEqual([
      {
        task: JOBS.inventoryFanout,
        key: `${JOBS.inventoryFanout}:shard:${productId % 64}`,
        payload: { product_id: productId },
        later: false,
      },
    ]);
    // The second statement touched the other variant too: the fan-out will name none.
    expect(second).toBeDefined();
    expect(await pending()).toEqual([{ variant_id: null }]);
  });

  it('webhook_coalesce: two dispatched changes of a product, merged in its window', async () => {
    const change = (variant: number | null) => ({
      store_id: storeId,
      event: 'product.updated' as const,
      entity_id: String(productId),
      data: variant === null ? {} : { variant_id: variant },
      created_at: new Date().toISOString(),
    });
    const jobs = await enqueued(async () => {
      await inTransaction((tx) => fanOutToWebhooks(tx, [change(variantIds[0] ?? 0)], 600_000));
      await inTransaction((tx) => fanOutToWebhooks(tx, [change(null)], 600_000));
    });
    expect(jobs).toEqual([
      {
        task: JOBS.webhookCoalesce,
        key: `${JOBS.webhookCoalesce}:product.updated:${productId}`,
        payload: [
          {
            event: 'product.updated',
            product_id: productId,
            variant_id: variantIds[0],
            at: expect.any(Number),
            store_ids: [storeId],
          },
          {
            event: 'product.updated',
            product_id: productId,
            variant_id: null,
            at: expect.any(Number),
            store_ids: [storeId],
          },
        ],
        later: true,
      },
    ]);
  });

  it('the crontab’s tasks: Graphile’s cron payload, and `{}` queued by hand', () => {
    // As graphile-worker's cron (makeJobForItem) queues a run: the item's payload with `_cron`, as JSON.
    const cron = JSON.parse(JSON.stringify({ _cron: { ts: new Date(), backfilled: true } }));
    for (const name of [
      JOBS.readinessPass,
      JOBS.pruneRateLimits,
      JOBS.pruneIdempotencyKeys,
      JOBS.pruneEvents,
      JOBS.pruneRequestLog,
      JOBS.deliverWebhooks,
    ]) {
      expect(parseJobPayload(name, cron)).toEqual(cron);
      expect(parseJobPayload(name, {})).toEqual({});
    }
  });

  it('inventory_fanout: the single object the first stock trigger queued is still read', () => {
    expect(parseJobPayload(JOBS.inventoryFanout, { product_id: 7 })).toEqual({ product_id: 7 });
  });
});

const quiet = { logger: { debug() {}, info() {}, warn() {}, error() {} } } as unknown as JobHelpers;

/** A payload each task's schema refuses, and the field its message must name. */
const MALFORMED: Record<JobName, [payload: unknown, names: RegExp]> = {
  [JOBS.sendMail]: [{ to: 'ops@example.test' }, /Unrecognized key: "to"/],
  [JOBS.dispatchEvents]: [[], /expected object, got array/],
  [JOBS.deliverWebhooks]: [{ _cron: { ts: 1, backfilled: false } }, /at _cron\.ts/],
  [JOBS.webhookCoalesce]: [
    [{ store_id: 1, event: 'product.updated', variant_id: null }],
    /at \[0\]\.product_id/,
  ],
  [JOBS.catalogueFanout]: [
    [{ product_id: 7, event: 'product.renamed', variant_ids: null, feed: true }],
    /at \[0\]\.event/,
  ],
  [JOBS.inventoryFanout]: [{ productId: 7 }, /product_id/],
  [JOBS.readinessPass]: [null, /expected object, got null/],
  [JOBS.pruneRateLimits]: ['now', /expected object, got string/],
  [JOBS.pruneIdempotencyKeys]: [7, /expected object, got number/],
  [JOBS.pruneEvents]: [{ days: 30 }, /Unrecognized key: "days"/],
  [JOBS.pruneRequestLog]: [{ days: 7 }, /Unrecognized key: "days"/],
  [JOBS.runExport]: [{ exportId: 7 }, /export_id/],
  [JOBS.pruneExports]: [{ days: 7 }, /Unrecognized key: "days"/],
};

describe('a malformed payload', () => {
  it('is refused by its task, naming the job, the shape expected and the field, before any work', async () => {
    const tasks = createTaskList(app.orm, TEST_MAIL, TEST_WEBHOOKS);
    const [before] = await rows<{ n: number }>(
      app.em(),
      sql`SELECT count(*)::integer AS n FROM domain_events`,
    );
    for (const [name, [payload, field]] of Object.entries(MALFORMED)) {
      const task = tasks[name];
      if (!task) throw new Error(`no ${name} task`);
      const refused = await Promise.resolve(task(payload, quiet)).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(refused, name).toBeInstanceOf(MalformedJobPayload);
      const message = (refused as Error).message;
      expect(message, name).toMatch(new RegExp(`^${name}: malformed payload, expected .+: `));
      expect(message, name).toMatch(field);
    }
    const [after] = await rows<{ n: number }>(
      app.em(),
      sql`SELECT count(*)::integer AS n FROM domain_events`,
    );
    expect(after?.n).toBe(before?.n);
  });

  it('names what the old code would have dereferenced as undefined (a coalesce item with no store)', () => {
    const items = [{ event: 'product.updated', product_id: 7, variant_id: null }];
    // Either shape would do, so the message names what each lacks: its stores, by list or by id.
    expect(() => parseJobPayload(JOBS.webhookCoalesce, items)).toThrow(
      /^webhook_coalesce: malformed payload, expected \[\{ event, product_id, variant_id, at, store_ids, livemode\? \}\] or older \[\{ store_id, event, product_id, variant_id, at\? \}\]: \(.* at \[0\]\.store_ids\) or \(.* at \[0\]\.store_id\)$/,
    );
  });

  it('fails its job in Graphile Worker with that message as the last error, and is retried later', async () => {
    await clearJobs();
    const bad = JSON.stringify([
      { product_id: productId, event: 'product.updated', variant_ids: ['1'], feed: true },
    ]);
    await rows(app.em(), sql`SELECT graphile_worker.add_job(${JOBS.catalogueFanout}, ${bad}::json)`);
    await runOnce({
      connectionString: app.databaseUrl,
      taskList: createTaskList(app.orm, TEST_MAIL, TEST_WEBHOOKS),
      logger: new Logger(() => () => {}),
    });
    // Graphile records failures in batches, which may land just after runOnce resolves.
    const job = await vi.waitFor(async () => {
      const [found] = await rows<{ attempts: number; last_error: string | null; later: boolean }>(
        app.em(),
        sql`SELECT j.attempts, j.last_error, j.run_at > now() AS later
          FROM graphile_worker._private_jobs j JOIN graphile_worker._private_tasks t ON t.id = j.task_id
          WHERE t.identifier = ${JOBS.catalogueFanout}`,
      );
      expect(found?.last_error).toBeTruthy();
      return found;
    });
    expect(job).toMatchObject({ attempts: 1, later: true });
    expect(job?.last_error).toContain(
      'catalogue_fanout: malformed payload, expected [{ product_id, event, variant_ids, feed }], one product: ' +
        'expected integer, got string at [0].variant_ids[0]',
    );
  });
});
