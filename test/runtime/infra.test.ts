import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseCrontab } from 'graphile-worker';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTaskList, crontab } from '../../jobs/tasks.ts';
import { ConfigError, loadConfig } from '../../server/config.ts';
import { buildOpenApiDocument } from '../../server/contract/document.ts';
import { scoreCatalogue } from '../../src/catalogue/readiness-scores.ts';
import { runReadinessPass } from '../../src/catalogue/run-readiness-pass.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { syncStockTotal } from '../../src/inventory/stock-total.ts';
import { startTestApp, TEST_MAIL, TEST_WEBHOOKS, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';

const ROOT = resolve(import.meta.dirname, '../..');

describe('committed contract', () => {
  it('openapi.json matches the document the routers generate', () => {
    const committed: unknown = JSON.parse(readFileSync(resolve(ROOT, 'openapi.json'), 'utf8'));
    const generated: unknown = JSON.parse(JSON.stringify(buildOpenApiDocument()));
    expect(committed, 'openapi.json is stale: run `npm run openapi` and commit the result').toEqual(
      generated,
    );
  });
});

describe('loadConfig', () => {
  const SECRET = 'ab'.repeat(32);

  const refusal = (env: Record<string, string>) => {
    try {
      loadConfig(env);
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as ConfigError).message;
    }
    throw new Error(`expected ConfigError for ${JSON.stringify(env)}`);
  };

  it('applies the documented defaults', () => {
    const cfg = loadConfig({});
    expect(cfg.PORT).toBe(3000);
    expect(cfg.publicUrl).toBe('http://localhost:3000');
    expect(cfg.DATA_DIR).toBe('.data');
    expect(cfg.WEBHOOK_TIMEOUT).toBe(10_000);
    expect(cfg.WEBHOOK_COALESCE_WINDOW).toBe(30_000);
    expect(cfg.WEBHOOK_RETRY_SCHEDULE).toEqual([60_000, 300_000, 1_800_000, 7_200_000, 43_200_000]);
    expect(cfg.WEBHOOK_ALLOW_PRIVATE).toEqual([]);
    expect(cfg.WEBHOOK_CONCURRENCY).toBe(256);
    expect([
      cfg.APP_RATE_LIMIT,
      cfg.OAUTH_TOKEN_RATE_LIMIT,
      cfg.OAUTH_REGISTER_RATE_LIMIT,
      cfg.DISCOVERY_RATE_LIMIT,
    ]).toEqual([120, 60, 20, 60]);
    expect(cfg.SECRET_KEY).toBeUndefined();
    expect(cfg.OPERATOR_TOKEN).toBeUndefined();
  });

  it('reads an empty setting as unset, never as 0 or an empty string', () => {
    expect(loadConfig({ PORT: '', PUBLIC_URL: ' ', WEBHOOK_TIMEOUT: '' }).PORT).toBe(3000);
    expect(loadConfig({ PORT: '' }).publicUrl).toBe('http://localhost:3000');
  });

  it('parses the webhook lists and refuses malformed ones', () => {
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8, ::1/128' }).WEBHOOK_ALLOW_PRIVATE).toEqual([
      '127.0.0.0/8',
      '::1/128',
    ]);
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '300ms,2s' }).WEBHOOK_RETRY_SCHEDULE).toEqual([300, 2000]);
    expect(refusal({ WEBHOOK_ALLOW_PRIVATE: '127.0.0.1' })).toContain('WEBHOOK_ALLOW_PRIVATE');
    expect(refusal({ WEBHOOK_ALLOW_PRIVATE: '10.0.0.0/33' })).toContain('WEBHOOK_ALLOW_PRIVATE');
    expect(refusal({ WEBHOOK_RETRY_SCHEDULE: '1m,,5m' })).toContain('WEBHOOK_RETRY_SCHEDULE');
    expect(refusal({ WEBHOOK_RETRY_SCHEDULE: '1m,0s' })).toContain('WEBHOOK_RETRY_SCHEDULE');
  });

  it('refuses a zero duration and a PUBLIC_URL that is not http(s)', () => {
    expect(refusal({ WEBHOOK_TIMEOUT: '0' })).toContain('WEBHOOK_TIMEOUT');
    expect(refusal({ PUBLIC_URL: 'ftp://stockless.example' })).toContain('PUBLIC_URL');
  });

  it('rejects a bad PORT with ConfigError naming PORT', () => {
    for (const PORT of ['abc', '70000', '-1', '80.5']) {
      expect(refusal({ PORT })).toContain('PORT');
    }
    expect(loadConfig({ PORT: '8080' }).PORT).toBe(8080);
    expect(loadConfig({ PORT: '8080' }).publicUrl).toBe('http://localhost:8080');
  });

  it('rejects a bad SECRET_KEY with ConfigError naming SECRET_KEY', () => {
    for (const SECRET_KEY of ['abc', 'zz'.repeat(32), 'ab'.repeat(31), 'ab'.repeat(33)]) {
      const message = refusal({ SECRET_KEY });
      expect(message).toContain('SECRET_KEY');
      // The value itself is a secret: never echo it.
      expect(message).not.toContain(SECRET_KEY);
    }
    expect(loadConfig({ SECRET_KEY: SECRET }).SECRET_KEY).toBe(SECRET);
    expect(loadConfig({ SECRET_KEY: SECRET.toUpperCase() }).SECRET_KEY).toBe(SECRET.toUpperCase());
  });

  it('rejects a short OPERATOR_TOKEN', () => {
    expect(refusal({ OPERATOR_TOKEN: 'short' })).toContain('OPERATOR_TOKEN');
  });

  it('parses durations into milliseconds', () => {
    expect(loadConfig({ WEBHOOK_TIMEOUT: '10s' }).WEBHOOK_TIMEOUT).toBe(10_000);
    expect(loadConfig({ WEBHOOK_TIMEOUT: '250ms' }).WEBHOOK_TIMEOUT).toBe(250);
    expect(loadConfig({ WEBHOOK_TIMEOUT: '1500' }).WEBHOOK_TIMEOUT).toBe(1500);
    expect(loadConfig({ WEBHOOK_COALESCE_WINDOW: '5m' }).WEBHOOK_COALESCE_WINDOW).toBe(300_000);
    expect(loadConfig({ SHUTDOWN_GRACE: '2h' }).SHUTDOWN_GRACE).toBe(7_200_000);
    expect(loadConfig({ SHUTDOWN_GRACE: '1.5s' }).SHUTDOWN_GRACE).toBe(1500);
    expect(loadConfig({ SHUTDOWN_GRACE: '1d' }).SHUTDOWN_GRACE).toBe(86_400_000);
  });

  it('rejects a value that is not a duration', () => {
    for (const WEBHOOK_TIMEOUT of ['soon', '10 sec', '-5s', '10s5']) {
      const message = refusal({ WEBHOOK_TIMEOUT });
      expect(message).toContain('WEBHOOK_TIMEOUT');
    }
  });

  it('strips a trailing slash from PUBLIC_URL and refuses a non-URL', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://api.example.com/' }).publicUrl).toBe('https://api.example.com');
    expect(refusal({ PUBLIC_URL: 'not a url' })).toContain('PUBLIC_URL');
  });
});

describe('/health', () => {
  /** Runs one statement as the server's admin, outside the app's own pool. */
  async function admin(statement: string) {
    const client = new pg.Client({ connectionString: inject('pgAdminUrl') });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  }

  it('answers 503 unavailable once the database is unreachable', async () => {
    const app = await startTestApp();
    const database = pg.escapeIdentifier(new URL(app.databaseUrl).pathname.slice(1));
    const name = pg.escapeLiteral(new URL(app.databaseUrl).pathname.slice(1));
    try {
      const up = await app.get('/health');
      expect(up.status).toBe(200);
      expect(up.body).toEqual({ status: 'ok', database: 'ok' });

      // The database goes away under the running app. (Closing the ORM would not do: MikroORM
      // reconnects lazily on the next query.) Refuse new connections and cut the pool's.
      await admin(`ALTER DATABASE ${database} WITH ALLOW_CONNECTIONS false`);
      await admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${name}`);

      const started = Date.now();
      const down = await app.get('/health');
      expect(down.status).toBe(503);
      expect(down.body).toEqual({ status: 'unavailable', database: 'unreachable' });
      expect(down.headers.get('x-request-id')).toBeTruthy();
      // The check is bounded by its one-second timeout.
      expect(Date.now() - started).toBeLessThan(5_000);

      // And it recovers once the database is back.
      await admin(`ALTER DATABASE ${database} WITH ALLOW_CONNECTIONS true`);
      const back = await app.get('/health');
      expect(back.status).toBe(200);
    } finally {
      await admin(`ALTER DATABASE ${database} WITH ALLOW_CONNECTIONS true`);
      await app.close();
    }
  });
});

describe('readiness pass', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app.close());

  const LONG = 'A solid oak dining table, finished by hand, with tapered legs and a generous top for eight.';
  const MEDIUM = 'A solid oak side table with tapered legs.'; // 40..79 characters

  async function scores(productId: number) {
    const list = await rows<{ channel: string; score: number }>(
      app.em(),
      sql`SELECT channel, score FROM product_completeness WHERE product_id = ${productId} ORDER BY channel`,
    );
    return Object.fromEntries(list.map((r) => [r.channel, r.score]));
  }
  async function product(productId: number) {
    const [row] = await rows<{
      ready_to_list: boolean;
      readiness_score: number;
      recommended_score: number;
      checked: boolean;
    }>(
      app.em(),
      sql`SELECT ready_to_list, readiness_score, recommended_score, readiness_checked_at IS NOT NULL AS checked
        FROM products WHERE id = ${productId}`,
    );
    if (!row) throw new Error(`no product ${productId}`);
    return row;
  }

  it('scores every channel by its documented checks and marks ready products', async () => {
    const em = app.em();
    const fx = fixtures(em);
    const supplierId = await fx.supplier();
    const brandId = await fx.brand();
    const categoryId = await fx.category();
    expect(MEDIUM.length).toBeGreaterThanOrEqual(40);
    expect(MEDIUM.length).toBeLessThan(80);

    const complete = await fx.product({
      supplierId,
      brandId,
      categoryId,
      description: LONG,
      stock: [3, 2],
      wholesale: 1000,
      retail: 2000,
    });
    const outOfStock = await fx.product({ supplierId, brandId, categoryId, description: LONG, stock: [0] });
    const inactive = await fx.product({ supplierId, brandId, categoryId, description: LONG, active: false });
    // Previously ready, with stale scores: the pass must take both away.
    const bare = await fx.product({
      supplierId,
      brandId,
      categoryId,
      description: '',
      imageUrl: null,
      readyToList: true,
      readinessScore: 100,
      completeness: { storefront: 100, google: 100, meta: 100, freight: 100 },
    });
    const medium = await fx.product({ supplierId, brandId, categoryId, description: MEDIUM });
    const uncategorised = await fx.product({ supplierId, description: LONG });
    const noWeight = await fx.product({ supplierId, brandId, categoryId, description: LONG, weightOz: null });
    const noDims = await fx.product({ supplierId, brandId, categoryId, description: LONG, dimensions: null });
    const nothingForFreight = await fx.product({
      supplierId,
      brandId,
      categoryId,
      description: LONG,
      weightOz: null,
      dimensions: null,
    });
    const oneDimMissing = await fx.product({ supplierId, brandId, categoryId, description: LONG });
    // Description thresholds, exactly at and just below them.
    const desc39 = await fx.product({ supplierId, brandId, categoryId, description: 'd'.repeat(39) });
    const desc40 = await fx.product({ supplierId, brandId, categoryId, description: 'd'.repeat(40) });
    const desc79 = await fx.product({ supplierId, brandId, categoryId, description: 'd'.repeat(79) });
    const desc80 = await fx.product({ supplierId, brandId, categoryId, description: 'd'.repeat(80) });
    await rows(em, sql`UPDATE products SET height_cm = NULL WHERE id = ${oneDimMissing}`);

    const result = await runReadinessPass({ em: app.em() });
    const [total] = await rows<{ n: number }>(app.em(), sql`SELECT count(*)::integer AS n FROM products`);
    expect(result.products).toBe(total?.n);
    expect(result.products).toBeGreaterThanOrEqual(10);
    expect(result.changed).toBeGreaterThanOrEqual(10);
    // A second pass over an unchanged catalogue rewrites no product.
    expect(await runReadinessPass({ em: app.em() })).toEqual({ products: total?.n, changed: 0 });

    expect(await scores(complete)).toEqual({ freight: 100, google: 100, meta: 100, storefront: 100 });
    expect(await product(complete)).toEqual({
      ready_to_list: true,
      readiness_score: 100,
      // storefront score * 10 + min(stock, 100) + margin percentage
      recommended_score: 100 * 10 + 5 + 50,
      checked: true,
    });

    // Google needs stock; storefront does not, but ready_to_list does.
    expect(await scores(outOfStock)).toEqual({ freight: 100, google: 83, meta: 100, storefront: 100 });
    expect(await product(outOfStock)).toMatchObject({ ready_to_list: false, readiness_score: 100 });

    expect(await scores(inactive)).toMatchObject({ storefront: 100 });
    expect(await product(inactive)).toMatchObject({ ready_to_list: false, readiness_score: 100 });

    // No image, no description: storefront 3/5, google 4/6, meta 2/4; freight untouched.
    expect(await scores(bare)).toEqual({ freight: 100, google: 66, meta: 50, storefront: 60 });
    expect(await product(bare)).toMatchObject({ ready_to_list: false, readiness_score: 60 });

    // 40+ characters is enough for the storefront, not for Google (80+).
    expect(await scores(medium)).toEqual({ freight: 100, google: 83, meta: 100, storefront: 100 });
    expect(await product(medium)).toMatchObject({ ready_to_list: true });

    expect(await scores(desc39)).toMatchObject({ storefront: 80, google: 83, meta: 100 });
    expect(await product(desc39)).toMatchObject({ ready_to_list: false });
    expect(await scores(desc40)).toMatchObject({ storefront: 100, google: 83 });
    expect(await product(desc40)).toMatchObject({ ready_to_list: true });
    expect(await scores(desc79)).toMatchObject({ storefront: 100, google: 83 });
    expect(await scores(desc80)).toMatchObject({ storefront: 100, google: 100 });

    // No brand, no category.
    expect(await scores(uncategorised)).toEqual({ freight: 100, google: 66, meta: 75, storefront: 80 });
    expect(await product(uncategorised)).toMatchObject({ ready_to_list: false, readiness_score: 80 });

    // Freight: weight and all three dimensions, a quarter each.
    expect((await scores(noWeight)).freight).toBe(75);
    expect((await scores(noDims)).freight).toBe(25);
    expect((await scores(nothingForFreight)).freight).toBe(0);
    expect((await scores(oneDimMissing)).freight).toBe(75);
    // Freight does not gate storefront readiness.
    expect(await product(nothingForFreight)).toMatchObject({ ready_to_list: true, readiness_score: 100 });
  });

  it('re-scores a product whose data changed, and is stable when nothing did', async () => {
    const em = app.em();
    const fx = fixtures(em);
    const supplierId = await fx.supplier();
    const categoryId = await fx.category();
    const id = await fx.product({ supplierId, categoryId, brandId: await fx.brand(), description: LONG });

    await runReadinessPass({ em: app.em() });
    expect(await product(id)).toMatchObject({ ready_to_list: true, readiness_score: 100 });
    const first = await scores(id);

    await runReadinessPass({ em: app.em() });
    expect(await scores(id)).toEqual(first);

    await rows(em, sql`UPDATE products SET image_url = NULL WHERE id = ${id}`);
    await runReadinessPass({ em: app.em() });
    expect(await scores(id)).toEqual({ freight: 100, google: 83, meta: 75, storefront: 80 });
    expect(await product(id)).toMatchObject({ ready_to_list: false, readiness_score: 80 });

    await rows(em, sql`UPDATE product_variants SET stock_quantity = 0 WHERE product_id = ${id}`);
    await syncStockTotal(em, id); // the stock fan-out job's step, which a worker runs after the change
    await rows(em, sql`UPDATE products SET image_url = 'https://img.example/back.jpg' WHERE id = ${id}`);
    await runReadinessPass({ em: app.em() });
    expect(await product(id)).toMatchObject({ ready_to_list: false, readiness_score: 100 });
  });

  it('leaves the same end state in batches of 3 as in one batch, each batch its own transaction', async () => {
    const em = app.em();
    const fx = fixtures(em);
    const supplierId = await fx.supplier();
    for (let i = 0; i < 10; i++) {
      await fx.product({
        supplierId,
        categoryId: i % 2 ? await fx.category() : null,
        description: i % 3 ? LONG : 'short',
        stock: [i % 4],
      });
    }
    const state = () =>
      rows(
        app.em(),
        sql`SELECT p.id, p.readiness_score, p.ready_to_list, p.recommended_score, p.complete_channels,
            (SELECT array_agg(channel || ':' || score ORDER BY channel) FROM product_completeness c
              WHERE c.product_id = p.id) AS scores
          FROM products p ORDER BY p.id`,
      );
    await rows(em, sql`DELETE FROM product_completeness`);
    await rows(
      em,
      sql`UPDATE products SET readiness_score = 0, ready_to_list = false, complete_channels = 0`,
    );
    const batched = await scoreCatalogue(app.em(), 3);
    // now() is each transaction's start: one distinct stamp per committed batch.
    const [stamps] = await rows<{ n: number; products: number }>(
      app.em(),
      sql`SELECT count(DISTINCT computed_at)::integer AS n, count(DISTINCT product_id)::integer AS products
        FROM product_completeness`,
    );
    expect(stamps?.products).toBeGreaterThan(9);
    expect(stamps?.n).toBeGreaterThan(3);
    const afterBatches = await state();
    const whole = await scoreCatalogue(app.em(), 1_000_000);
    expect(await state()).toEqual(afterBatches);
    const [total] = await rows<{ n: number }>(app.em(), sql`SELECT count(*)::integer AS n FROM products`);
    expect([batched.products, whole.products]).toEqual([total?.n, total?.n]);
  });
});

describe('jobs', () => {
  it('schedules readiness_pass nightly', () => {
    const items = parseCrontab(crontab);
    expect(items.map((i) => i.task)).toEqual([
      'readiness_pass',
      'prune_rate_limits',
      'prune_idempotency_keys',
      'prune_events',
      'prune_request_log',
      'export_prune',
      'deliver_webhooks',
    ]);
    const item = items.find((i) => i.task === 'readiness_pass');
    const at = (hour: number, min: number, dow = 3, date = 15, month = 6) => ({
      min,
      hour,
      date,
      month,
      dow,
    });
    // Exactly once a day, every day of the week.
    let matches = 0;
    for (let hour = 0; hour < 24; hour++) {
      for (let min = 0; min < 60; min++) if (item?.match(at(hour, min))) matches++;
    }
    expect(matches).toBe(1);
    for (let dow = 0; dow < 7; dow++) expect(item?.match(at(3, 0, dow))).toBe(true);
    expect(item?.match(at(3, 0, 0, 1, 1))).toBe(true);
    // A missed run is caught up.
    expect(item?.options.backfillPeriod).toBeGreaterThan(0);
  });

  it('lists a readiness_pass task that runs the pass', async () => {
    const app = await startTestApp();
    try {
      const tasks = createTaskList(app.orm, TEST_MAIL, TEST_WEBHOOKS);
      expect(Object.keys(tasks)).toContain('readiness_pass');
      const task = tasks.readiness_pass;
      if (!task) throw new Error('no readiness_pass task');

      const fx = fixtures(app.em());
      const supplierId = await fx.supplier();
      const id = await fx.product({ supplierId, categoryId: await fx.category(), description: LONG_TEXT });
      const logged: string[] = [];
      const helpers = { logger: { info: (m: string) => logged.push(m) } };
      await task({}, helpers as never);
      const [row] = await rows<{ ready_to_list: boolean; n: number }>(
        app.em(),
        sql`SELECT ready_to_list, (SELECT count(*)::integer FROM product_completeness WHERE product_id = ${id}) AS n
          FROM products WHERE id = ${id}`,
      );
      expect(row).toEqual({ ready_to_list: true, n: 4 });
      expect(logged.join('\n')).toContain('readiness pass');
    } finally {
      await app.close();
    }
  });
});

const LONG_TEXT = 'A deep armchair in washed linen, with feather cushions and a solid beech frame.';

describe('REST input schemas', () => {
  it('have no field trpc-to-openapi would coerce with Number() or Boolean()', async () => {
    const { appRouter } = await import('../../src/router.ts');
    const { proceduresMeta } = await import('../../src/trpc/meta.ts');
    const procedures = appRouter._def.procedures as unknown as Record<
      string,
      { _def: { inputs: { _zod: { def: { type: string; shape?: Record<string, unknown> } } }[] } }
    >;
    const coercible = new Set(['number', 'boolean', 'bigint', 'date']);
    const unwrap = (t: {
      _zod: { def: { type: string; innerType?: unknown } };
    }): { _zod: { def: { type: string } } } =>
      ['optional', 'nullable', 'default', 'prefault'].includes(t._zod.def.type)
        ? unwrap(t._zod.def.innerType as never)
        : t;
    const offenders: string[] = [];
    for (const [path, meta] of proceduresMeta(appRouter)) {
      if (!meta.openapi) continue;
      for (const input of procedures[path]?._def.inputs ?? []) {
        for (const [key, field] of Object.entries(input._zod.def.shape ?? {})) {
          if (coercible.has(unwrap(field as never)._zod.def.type)) offenders.push(`${path}.${key}`);
        }
      }
    }
    // Use intParam / boolParam from src/trpc/params.ts instead.
    expect(offenders).toEqual([]);
  });
});
