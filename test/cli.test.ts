import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorBody, GetMyProductResponse, GetStoreResponse } from '../client/src/index.ts';
import { runReadinessPass } from '../src/catalogue/run-readiness-pass.ts';
import { rows, sql } from '../src/db/sql.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';
import { type CliRun, runCli } from './helpers/cli.ts';

type Run = CliRun;

const cli = runCli;

/** The one JSON document a `--json` run prints on stdout. */
function json<T = Record<string, unknown>>(run: Run): T {
  const lines = run.stdout.trim().split('\n');
  expect(lines, `stdout: ${run.stdout}\nstderr: ${run.stderr}`).toHaveLength(1);
  return JSON.parse(lines[0] ?? '') as T;
}

async function ok<T = Record<string, unknown>>(run: Promise<Run>): Promise<T> {
  const r = await run;
  expect(r.code, `stdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(0);
  return json<T>(r);
}

interface StoreOut {
  id: number;
  name: string;
  slug: string;
}
interface KeyOut {
  id: number;
  store_id: number;
  scope: string;
  mode: string;
  key: string;
}
interface SeedOut {
  seeded: number;
  first_id: number;
  last_id: number;
}

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

const count = async (target: TestApp, statement: ReturnType<typeof sql<{ n: number }>>) => {
  const [row] = await rows<{ n: number }>(target.em(), statement);
  return row?.n;
};

describe('operator CLI: stores and keys', () => {
  let storeId: number;

  beforeAll(async () => {
    const created = await ok<StoreOut>(
      cli(app.databaseUrl, 'stores:create', '--name', 'CLI Store', '--json'),
    );
    expect(created).toMatchObject({ id: expect.any(Number), name: 'CLI Store', slug: 'cli-store' });
    storeId = created.id;
  });

  it('stores:create writes the store', async () => {
    const [row] = await rows<{ name: string; slug: string }>(
      app.em(),
      sql`SELECT name, slug FROM stores WHERE id = ${storeId}`,
    );
    expect(row).toEqual({ name: 'CLI Store', slug: 'cli-store' });
  });

  it('keys:create --test makes sl_test_ keys that work over HTTP, by scope', async () => {
    const [rw, ro] = await Promise.all([
      ok<KeyOut>(
        cli(
          app.databaseUrl,
          'keys:create',
          '--store',
          String(storeId),
          '--scope',
          'read_write',
          '--test',
          '--json',
        ),
      ),
      ok<KeyOut>(
        cli(
          app.databaseUrl,
          'keys:create',
          '--store',
          String(storeId),
          '--scope',
          'read',
          '--test',
          '--json',
        ),
      ),
    ]);
    expect(rw).toMatchObject({
      id: expect.any(Number),
      store_id: storeId,
      scope: 'read_write',
      mode: 'test',
    });
    expect(rw.key).toMatch(/^sl_test_[a-z2-7]{32,}$/);
    expect(ro).toMatchObject({ store_id: storeId, scope: 'read', mode: 'test' });
    expect(ro.key).toMatch(/^sl_test_[a-z2-7]{32,}$/);
    expect(rw.key).not.toBe(ro.key);

    for (const key of [rw.key, ro.key]) {
      const me = await app.get<GetStoreResponse>('/api/v1/vendor/me', key);
      expect(me.status).toBe(200);
      expect(me.body.store).toMatchObject({ id: storeId, name: 'CLI Store' });
    }
    // Only a hash is stored.
    const stored = await count(
      app,
      sql`SELECT count(*)::integer AS n FROM api_keys WHERE token_hash IN (${rw.key}, ${ro.key})`,
    );
    expect(stored).toBe(0);
  });

  it('keys:create without --test makes an sl_live_ key', async () => {
    const live = await ok<KeyOut>(
      cli(app.databaseUrl, 'keys:create', '--store', String(storeId), '--scope', 'read', '--json'),
    );
    expect(live.key).toMatch(/^sl_live_[a-z2-7]{32,}$/);
    expect(live.mode).toBe('live');
    expect((await app.get('/api/v1/vendor/me', live.key)).status).toBe(200);
  });

  it('keys:create for an unknown store exits non-zero with a not_found error', async () => {
    const r = await cli(app.databaseUrl, 'keys:create', '--store', '999999', '--scope', 'read', '--json');
    expect(r.code).not.toBe(0);
    expect(json(r)).toEqual({ error: 'not_found', message: expect.stringContaining('999999') });
  });

  it('keys:revoke makes the key answer 401', async () => {
    const created = await ok<KeyOut>(
      cli(
        app.databaseUrl,
        'keys:create',
        '--store',
        String(storeId),
        '--scope',
        'read_write',
        '--test',
        '--json',
      ),
    );
    expect((await app.get('/api/v1/vendor/me', created.key)).status).toBe(200);
    const revoked = await ok(cli(app.databaseUrl, 'keys:revoke', String(created.id), '--json'));
    expect(revoked).toEqual({ id: created.id, revoked: true });
    const after = await app.get<ErrorBody>('/api/v1/vendor/me', created.key);
    expect(after.status).toBe(401);
    expect(after.body.error).toBe('unauthorized');
  });
});

describe('operator CLI: refusals', () => {
  it('refuses --scope admin with a one-line reason and a non-zero exit', async () => {
    const [plain, asJson] = await Promise.all([
      cli(app.databaseUrl, 'keys:create', '--store', '1', '--scope', 'admin'),
      cli(app.databaseUrl, 'keys:create', '--store', '1', '--scope', 'admin', '--json'),
    ]);
    expect(plain.code).not.toBe(0);
    expect(plain.stdout).toBe('');
    expect(plain.stderr.trim().split('\n')).toHaveLength(1);
    expect(plain.stderr).toMatch(/scope/);
    expect(asJson.code).not.toBe(0);
    expect(json(asJson)).toEqual({ error: 'bad_request', message: expect.stringMatching(/scope/) });
  });

  it('refuses stores:create without --name', async () => {
    const before = await count(app, sql`SELECT count(*)::integer AS n FROM stores`);
    const r = await cli(app.databaseUrl, 'stores:create', '--json');
    expect(r.code).not.toBe(0);
    const body = json(r);
    expect(body).toEqual({ error: 'bad_request', message: expect.stringContaining('--name') });
    expect(body.message).not.toContain('\n');
    expect(await count(app, sql`SELECT count(*)::integer AS n FROM stores`)).toBe(before);
  });

  it('rejects an unknown command with usage', async () => {
    const r = await cli(app.databaseUrl, 'stores:delete', '--json');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('usage');
  });
});

describe('operator CLI: platform and seed', () => {
  it('platform:set inventory_read off turns the feature off', async () => {
    const before = await rows<{ enabled: boolean }>(
      app.em(),
      sql`SELECT enabled FROM platform_features WHERE name = 'inventory_read'`,
    );
    expect(before).toEqual([{ enabled: true }]);
    const out = await ok(cli(app.databaseUrl, 'platform:set', 'inventory_read', 'off', '--json'));
    expect(out).toEqual({ feature: 'inventory_read', enabled: false });
    const after = await rows<{ enabled: boolean }>(
      app.em(),
      sql`SELECT name, enabled FROM platform_features ORDER BY name`,
    );
    expect(after).toEqual([
      { name: 'external_orders', enabled: true },
      { name: 'inventory_read', enabled: false },
    ]);
  });

  it('seed --products 50 adds products with variants, scored as the readiness pass scores them', async () => {
    const before = await count(app, sql`SELECT count(*)::integer AS n FROM products`);
    const out = await ok<SeedOut>(cli(app.databaseUrl, 'seed', '--products', '50', '--json'));
    expect(out).toMatchObject({ seeded: 50 });
    expect(out.last_id - out.first_id + 1).toBe(50);

    expect(await count(app, sql`SELECT count(*)::integer AS n FROM products`)).toBe((before ?? 0) + 50);
    const range = sql`BETWEEN ${out.first_id} AND ${out.last_id}`;
    // Every new product has at least one variant, and its stock is the sum of them.
    expect(
      await count(
        app,
        sql`SELECT count(*)::integer AS n FROM products p WHERE p.id ${range}
          AND EXISTS (SELECT 1 FROM product_variants v WHERE v.product_id = p.id)
          AND p.stock_quantity = (SELECT sum(stock_quantity) FROM product_variants v WHERE v.product_id = p.id)`,
      ),
    ).toBe(50);
    // Every new product is scored on every channel, exactly as the readiness pass scores it: a pass
    // afterwards rewrites none of them.
    expect(
      await count(
        app,
        sql`SELECT count(*)::integer AS n FROM product_completeness WHERE product_id ${range}`,
      ),
    ).toBe(200);
    expect(
      await count(
        app,
        sql`SELECT count(*)::integer AS n FROM products WHERE id ${range} AND readiness_checked_at IS NOT NULL`,
      ),
    ).toBe(50);
    const scoredRows = () =>
      rows(
        app.em(),
        sql`SELECT p.id, p.readiness_score, p.ready_to_list, p.complete_channels, p.recommended_score,
            p.readiness_checked_at, (SELECT array_agg(c.channel || ':' || c.score || ':' || c.computed_at ORDER BY c.channel)
              FROM product_completeness c WHERE c.product_id = p.id) AS channels
          FROM products p WHERE p.id ${range} ORDER BY p.id`,
      );
    const seeded = await scoredRows();
    expect(seeded.some((r) => (r as { ready_to_list: boolean }).ready_to_list)).toBe(true);
    await runReadinessPass({ em: app.em() });
    expect(await scoredRows()).toEqual(seeded);
  });

  it('seeds the same catalogue into two fresh databases', async () => {
    const [a, b] = await Promise.all([startTestApp(), startTestApp()]);
    try {
      await Promise.all([
        ok(cli(a.databaseUrl, 'seed', '--products', '30', '--json')),
        ok(cli(b.databaseUrl, 'seed', '--products', '30', '--json')),
      ]);
      const read = (target: TestApp) =>
        rows<{ name: string; sku: string; retail_price_cents: number; variants: string }>(
          target.em(),
          sql`SELECT p.name, p.sku, p.retail_price_cents, p.wholesale_price_cents, p.stock_quantity,
              (SELECT string_agg(v.sku || ':' || v.stock_quantity, ',' ORDER BY v.position)
                 FROM product_variants v WHERE v.product_id = p.id) AS variants
            FROM products p ORDER BY p.sku`,
        );
      const [left, right] = await Promise.all([read(a), read(b)]);
      expect(left).toHaveLength(30);
      expect(new Set(left.map((r) => r.name)).size).toBeGreaterThan(1);
      expect(right).toEqual(left);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe('own-goods:create', () => {
  it('creates an own-goods product of the store, listed at once, and refuses a taken SKU', async () => {
    const store = await app.createStore('Own Goods CLI');
    const made = await ok<{ product_id: number; listing_id: number; supplier_id: number }>(
      cli(
        app.databaseUrl,
        'own-goods:create',
        '--store',
        String(store.id),
        '--sku',
        'OWN-CLI-1',
        '--name',
        'Clay Mug',
        '--price',
        '3500',
        '--stock',
        '7',
        '--json',
      ),
    );
    const listing = await app.get<GetMyProductResponse>(`/api/v1/my-products/${made.product_id}`, store.read);
    expect(listing.status).toBe(200);
    expect(listing.body.product).toMatchObject({
      product_id: made.product_id,
      sku: 'OWN-CLI-1',
      name: 'Clay Mug',
      effective_retail_price_cents: 3500,
      own_goods: true,
      stock_quantity: 7,
    });
    const me = await app.get<GetStoreResponse>('/api/v1/vendor/me', store.read);
    expect(me.body.store.has_own_suppliers).toBe(true);
    const again = await cli(
      app.databaseUrl,
      'own-goods:create',
      '--store',
      String(store.id),
      '--sku',
      'OWN-CLI-1',
      '--name',
      'Other',
      '--price',
      '100',
      '--stock',
      '1',
      '--json',
    );
    expect(again.code).not.toBe(0);
    expect(json(again)).toMatchObject({ error: 'conflict' });
  });
});
