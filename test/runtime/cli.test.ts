import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorBody, GetMyProductResponse, GetStoreResponse } from '../../client/src/index.ts';
import { suggest } from '../../server/cli/args.ts';
import { COMMANDS } from '../../server/cli/commands.ts';
import { commandHelp, readmeTable, usageLine } from '../../server/cli/help.ts';
import { runReadinessPass } from '../../src/catalogue/run-readiness-pass.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { type CliRun, runCli } from '../helpers/cli.ts';

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

  it('names an unknown command, suggests the one meant, and exits 2', async () => {
    const [plain, asJson, far] = await Promise.all([
      cli(app.databaseUrl, 'stores:lst'),
      cli(app.databaseUrl, 'stores:lst', '--json'),
      cli(app.databaseUrl, 'frobnicate', '--json'),
    ]);
    expect(plain.code).toBe(2);
    expect(plain.stdout).toBe('');
    expect(plain.stderr.trim()).toBe(
      'error: Unknown command "stores:lst". Did you mean "stores:list"? Run "npm run cli -- --help" for the list.',
    );
    expect(asJson.code).toBe(2);
    expect(json(asJson)).toEqual({
      error: 'bad_request',
      message:
        'Unknown command "stores:lst". Did you mean "stores:list"? Run "npm run cli -- --help" for the list.',
    });
    expect(far.code).toBe(2);
    expect(json(far)).toEqual({
      error: 'bad_request',
      message: 'Unknown command "frobnicate". Run "npm run cli -- --help" for the list.',
    });
  });

  it('names an unknown flag of a known command before touching the database', async () => {
    const before = await count(app, sql`SELECT count(*)::integer AS n FROM stores`);
    const [typo, asJson] = await Promise.all([
      cli(app.databaseUrl, 'stores:create', '--nam', 'Typo Store'),
      cli(app.databaseUrl, 'keys:list', '--stor', '1', '--json'),
    ]);
    expect(typo.code).toBe(2);
    expect(typo.stderr.trim()).toBe(
      'error: Unknown flag "--nam" for stores:create. Did you mean "--name"? Run "npm run cli -- stores:create --help" for its usage.',
    );
    expect(asJson.code).toBe(2);
    expect(json(asJson)).toEqual({
      error: 'bad_request',
      message: expect.stringMatching(/^Unknown flag "--stor" for keys:list\. Did you mean "--store"\?/),
    });
    expect(await count(app, sql`SELECT count(*)::integer AS n FROM stores`)).toBe(before);
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

/** Nothing listens here: a command that tried to reach the database would fail. */
const NO_DATABASE = 'postgres://nobody:nothing@127.0.0.1:1/nowhere';

describe('operator CLI: help', () => {
  it('--help, help, -h and no command list every command with its description, without a database', async () => {
    const [long, word, short, none] = await Promise.all([
      cli(NO_DATABASE, '--help'),
      cli(NO_DATABASE, 'help'),
      cli(NO_DATABASE, '-h'),
      cli(NO_DATABASE),
    ]);
    for (const r of [long, word, short]) {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain('Usage: npm run cli -- <command>');
      for (const c of COMMANDS) {
        expect(r.stdout).toMatch(new RegExp(`^  ${c.name} +${escapeRegExp(c.description)}$`, 'm'));
      }
    }
    expect(word.stdout).toBe(long.stdout);
    // No command at all is a mistake (an empty variable in a script): the same list on stderr, exit 2.
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain(long.stdout.trim());
  });

  it('<command> --help and -h print its usage, description and flags and exit 0, without a database', async () => {
    const [long, short, word, asJson, inMidst] = await Promise.all([
      cli(NO_DATABASE, 'keys:create', '--help'),
      cli(NO_DATABASE, 'keys:create', '-h'),
      cli(NO_DATABASE, 'help', 'keys:create'),
      cli(NO_DATABASE, 'keys:list', '--help', '--json'),
      cli(NO_DATABASE, 'orders:advance', '12', 'shipped', '--tracking', 'T1', '-h'),
    ]);
    expect(long.code, long.stderr).toBe(0);
    expect(long.stdout.trim().split('\n')).toEqual([
      'Usage: npm run cli -- keys:create --store ID --scope read|read_write [--test] [--name N] [--json]',
      '',
      'Creates an API key, shown once.',
      '',
      'Flags:',
      '  --store ID               the store id',
      '  --scope read|read_write  what the key may do',
      '  --test                   an sl_test_ key (default: sl_live_)',
      '  --name N                 a label for the key',
      '  --json                   print the result as one line of JSON',
      "  -h, --help               print this command's usage and exit",
    ]);
    expect(short).toEqual(long);
    expect(word).toEqual(long);
    expect(asJson.code).toBe(0);
    expect(json(asJson)).toMatchObject({
      command: 'keys:list',
      usage: 'npm run cli -- keys:list --store ID [--json]',
      flags: expect.arrayContaining([{ flag: '--store ID', help: 'the store id' }]),
    });
    expect(inMidst.code).toBe(0);
    expect(inMidst.stdout).toContain('Usage: npm run cli -- orders:advance ORDER_ID STATUS');
  });

  it('every command declares exactly the flags its usage line shows, and its help lists them', () => {
    for (const c of COMMANDS) {
      expect(c.description, c.name).not.toMatch(/\n|\.$/);
      const shown = new Set([...c.synopsis.matchAll(/--([a-z][a-z-]*)/g)].map((m) => m[1]));
      // orders:create-storefront's usage shows the common flags; the address fields are in its help.
      const declared = Object.keys(c.flags).filter(
        (f) => shown.has(f) || c.name !== 'orders:create-storefront',
      );
      expect([...shown].sort(), c.name).toEqual(declared.sort());
      const help = commandHelp(c);
      expect(help).toContain(usageLine(c));
      for (const flag of Object.keys(c.flags))
        expect(help, c.name).toMatch(new RegExp(`^  --${flag}\\b`, 'm'));
    }
    expect(new Set(COMMANDS.map((c) => c.name)).size).toBe(COMMANDS.length);
  });

  it("the README's CLI table is the one generated from the command definitions", async () => {
    const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
    expect(readme).toContain(`${readmeTable(COMMANDS)}\n`);
  });

  it('suggests the command meant: one close typo, or the commands a prefix starts', () => {
    const names = COMMANDS.map((c) => c.name);
    expect(suggest('stores:lst', names)).toEqual(['stores:list']);
    expect(suggest('key:list', names)).toEqual(['keys:list']);
    expect(suggest('webhook:list', names)).toEqual(['webhooks:list']);
    expect(suggest('stores', names)).toEqual(['stores:create', 'stores:list']);
    expect(suggest('deploy', names)).toEqual([]);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('operator CLI: lists', () => {
  let storeId: number;
  let keys: KeyOut[];

  beforeAll(async () => {
    const store = await ok<StoreOut>(
      cli(app.databaseUrl, 'stores:create', '--name', 'Listed Store', '--json'),
    );
    storeId = store.id;
    // One after the other, so their ids follow the order of the list.
    keys = [];
    for (const scope of ['read', 'read_write']) {
      keys.push(
        await ok<KeyOut>(
          cli(
            app.databaseUrl,
            'keys:create',
            '--store',
            String(storeId),
            '--scope',
            scope,
            '--name',
            `k-${scope}`,
            '--json',
          ),
        ),
      );
    }
    await ok(cli(app.databaseUrl, 'keys:revoke', String(keys[0]?.id), '--json'));
    // A key used once has its last use recorded.
    expect((await app.get('/api/v1/vendor/me', keys[1]?.key)).status).toBe(200);
    // Recorded after the answer, off the request's path: wait for it.
    for (let i = 0; i < 50; i++) {
      const [used] = await rows<{ n: number }>(
        app.em(),
        sql`SELECT count(*)::integer AS n FROM api_keys WHERE id = ${keys[1]?.id ?? 0} AND last_used_at IS NOT NULL`,
      );
      if (used?.n) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await rows(
      app.em(),
      sql`INSERT INTO webhook_subscriptions (store_id, url, events, secret_encrypted)
        VALUES (${storeId}, 'https://hooks.example.com/a', '{order.created,order.shipped}', 'SECRET-CIPHERTEXT-A')`,
    );
    await rows(
      app.em(),
      sql`INSERT INTO webhook_subscriptions (store_id, url, events, secret_encrypted, active, disabled_reason, dead_letter_streak)
        VALUES (${storeId}, 'https://hooks.example.com/b', '{*}', 'SECRET-CIPHERTEXT-B', false, 'dead_letters', 20)`,
    );
  });

  it('stores:list shows every store with its listings count', async () => {
    const out = await ok<{ stores: Record<string, unknown>[] }>(
      cli(app.databaseUrl, 'stores:list', '--json'),
    );
    const mine = out.stores.find((s) => s.id === storeId);
    expect(mine).toEqual({
      id: storeId,
      name: 'Listed Store',
      slug: 'listed-store',
      listings_count: 0,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    const ids = out.stores.map((s) => s.id as number);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const [row] = await rows<{ n: number }>(app.em(), sql`SELECT count(*)::integer AS n FROM stores`);
    expect(out.stores).toHaveLength(row?.n ?? -1);

    const plain = await cli(app.databaseUrl, 'stores:list');
    expect(plain.code, plain.stderr).toBe(0);
    const lines = plain.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^id +name +slug +listings_count +created_at$/);
    expect(lines.find((l) => l.includes('listed-store'))).toMatch(
      new RegExp(`^${storeId} +Listed Store +listed-store +0 +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ$`),
    );
  });

  it('keys:list shows prefixes, scopes, modes and revocations, never a key or its hash', async () => {
    const run = await cli(app.databaseUrl, 'keys:list', '--store', String(storeId), '--json');
    const out = await ok<{ store_id: number; keys: Record<string, unknown>[] }>(Promise.resolve(run));
    expect(out.store_id).toBe(storeId);
    expect(out.keys).toEqual([
      {
        id: keys[0]?.id,
        name: 'k-read',
        prefix: keys[0]?.key.slice(0, 12),
        scope: 'read',
        mode: 'live',
        created_at: expect.any(String),
        last_used_at: null,
        revoked_at: expect.any(String),
      },
      {
        id: keys[1]?.id,
        name: 'k-read_write',
        prefix: keys[1]?.key.slice(0, 12),
        scope: 'read_write',
        mode: 'live',
        created_at: expect.any(String),
        last_used_at: expect.any(String),
        revoked_at: null,
      },
    ]);
    const hashes = await rows<{ token_hash: string }>(
      app.em(),
      sql`SELECT token_hash FROM api_keys WHERE store_id = ${storeId}`,
    );
    const plain = await cli(app.databaseUrl, 'keys:list', '--store', String(storeId));
    expect(plain.code, plain.stderr).toBe(0);
    for (const secret of [...keys.map((k) => k.key), ...hashes.map((h) => h.token_hash)]) {
      expect(run.stdout).not.toContain(secret);
      expect(plain.stdout).not.toContain(secret);
    }
    const lines = plain.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^id +name +prefix +scope +mode +created_at +last_used_at +revoked_at$/);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(
      new RegExp(`^${keys[0]?.id} +k-read +sl_live_\\w{4} +read +live +\\S+ \\S+ +- +\\S+ \\S+$`),
    );
  });

  it('webhooks:list shows subscriptions with their failure streaks, never the secret', async () => {
    const run = await cli(app.databaseUrl, 'webhooks:list', '--store', String(storeId), '--json');
    const out = await ok<{ webhooks: Record<string, unknown>[] }>(Promise.resolve(run));
    expect(out.webhooks).toEqual([
      expect.objectContaining({
        url: 'https://hooks.example.com/a',
        events: ['order.created', 'order.shipped'],
        active: true,
        disabled_reason: null,
        failure_streak: 0,
        created_at: expect.any(String),
      }),
      expect.objectContaining({
        url: 'https://hooks.example.com/b',
        events: ['*'],
        active: false,
        disabled_reason: 'dead_letters',
        failure_streak: 20,
      }),
    ]);
    const plain = await cli(app.databaseUrl, 'webhooks:list', '--store', String(storeId));
    expect(plain.code, plain.stderr).toBe(0);
    for (const text of [run.stdout, plain.stdout]) expect(text).not.toMatch(/SECRET-CIPHERTEXT|secret/i);
    const lines = plain.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^id +url +events +active +failure_streak +disabled_reason +created_at$/);
    expect(lines[1]).toMatch(/https:\/\/hooks\.example\.com\/a +order\.created,order\.shipped +yes +0 +- +/);
    expect(lines[2]).toMatch(/https:\/\/hooks\.example\.com\/b +\* +no +20 +dead_letters +/);
  });

  it('an empty list reads as such, and an unknown store is not_found', async () => {
    const other = await ok<StoreOut>(cli(app.databaseUrl, 'stores:create', '--name', 'Bare Store', '--json'));
    const [emptyKeys, emptyHooks, missing, missingHooks, noStore] = await Promise.all([
      cli(app.databaseUrl, 'keys:list', '--store', String(other.id)),
      cli(app.databaseUrl, 'webhooks:list', '--store', String(other.id), '--json'),
      cli(app.databaseUrl, 'keys:list', '--store', '999999', '--json'),
      cli(app.databaseUrl, 'webhooks:list', '--store', '999999'),
      cli(app.databaseUrl, 'keys:list', '--json'),
    ]);
    expect(emptyKeys.stdout.trim()).toBe('No API keys.');
    expect(json(emptyHooks)).toEqual({ store_id: other.id, webhooks: [] });
    expect(missing.code).toBe(1);
    expect(json(missing)).toEqual({ error: 'not_found', message: 'No store with id 999999' });
    expect(missingHooks.code).toBe(1);
    expect(missingHooks.stderr.trim()).toBe('error: No store with id 999999');
    expect(noStore.code).toBe(2);
    expect(json(noStore)).toEqual({ error: 'bad_request', message: '--store must be a whole number' });
  });
});
