import { writeFile } from 'node:fs/promises';
import { TRPCError } from '@trpc/server';
import { seedDemo } from '../../src/demo/demo-store.ts';
import { seedProducts } from '../../src/demo/seed-catalogue.ts';
import { AppError } from '../../src/errors.ts';
import { createCaller } from '../../src/router.ts';
import type { DomainSettings } from '../../src/trpc/context.ts';
import { shapeError } from '../../src/trpc/errors.ts';
import { domainSettingsOf, loadConfig } from '../config.ts';
import { buildOpenApiDocument } from '../contract/document.ts';
import { loadEnvFile } from '../env.ts';
import { createLogger } from '../logger.ts';
import { migrateDirect, type Orm, openOrm } from '../orm.ts';
import { newRequestId } from '../request-id.ts';
import { connectDatabase } from '../runtime.ts';
import { resolveSecretKey } from '../secret-key.ts';
import { integer, parse, requireString, UsageError } from './args.ts';
import { catalogueCommands } from './catalogue-commands.ts';
import { progressBar } from './progress.ts';

let settings: DomainSettings;

type Command = (argv: string[], env: { orm: () => Promise<Orm>; json: boolean }) => Promise<unknown>;

/** The operator acts through the same internal procedures as the dashboard, with the same validation. */
function operator(orm: Orm) {
  const token = `cli_${newRequestId()}_${newRequestId()}`;
  return createCaller({
    em: orm.em.fork(),
    requestId: newRequestId(),
    headers: { authorization: `Bearer ${token}` },
    settings: { ...settings, operatorToken: token },
    log: createLogger('silent'),
  }).internal;
}

const commands: Record<string, Command> = {
  'stores:create': async (argv, env) => {
    const { values } = parse(argv, {
      name: { type: 'string' },
      slug: { type: 'string' },
      email: { type: 'string' },
    });
    return operator(await env.orm()).store.create({
      name: requireString(values, 'name'),
      slug: values.slug as string | undefined,
      ownerEmail: values.email as string | undefined,
    });
  },
  'keys:create': async (argv, env) => {
    const { values } = parse(argv, {
      store: { type: 'string' },
      scope: { type: 'string' },
      test: { type: 'boolean' },
      name: { type: 'string' },
    });
    const scope = requireString(values, 'scope');
    if (scope !== 'read' && scope !== 'read_write')
      throw new UsageError('--scope must be read or read_write');
    return operator(await env.orm()).store.createApiKey({
      storeId: integer(values.store as string | undefined, '--store'),
      scope,
      mode: values.test ? 'test' : 'live',
      name: values.name as string | undefined,
    });
  },
  'keys:revoke': async (argv, env) => {
    const { positionals } = parse(argv, {});
    return operator(await env.orm()).store.revokeApiKey({ id: integer(positionals[0], 'KEY_ID') });
  },
  seed: async (argv, env) => {
    const { values } = parse(argv, { products: { type: 'string' }, demo: { type: 'boolean' } });
    const count = values.products === undefined ? 1000 : integer(values.products as string, '--products');
    const orm = await env.orm();
    const bar = env.json || !process.stderr.isTTY ? undefined : progressBar('products');
    if (values.demo) return seedDemo(orm.em.fork(), count, bar);
    // The seed scores its products as it inserts them: no readiness pass to follow.
    const range = await seedProducts(orm.em.fork(), count, bar);
    // A bulk load leaves the planner without statistics and the facet deltas full of dead rows.
    await orm.em
      .fork()
      .getConnection()
      .execute('VACUUM (ANALYZE) products, product_variants, facet_cell_deltas');
    return { seeded: count, first_id: range.first, last_id: range.last };
  },
  'platform:set': async (argv, env) => {
    const { positionals } = parse(argv, {});
    const [feature, state] = positionals;
    if (feature !== 'inventory_read' && feature !== 'external_orders') {
      throw new UsageError('FEATURE must be inventory_read or external_orders');
    }
    if (state !== 'on' && state !== 'off') throw new UsageError('state must be on or off');
    return operator(await env.orm()).platform.setFeature({ feature, enabled: state === 'on' });
  },
  'users:create': async (argv, env) => {
    const { values } = parse(argv, {
      store: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
    });
    return operator(await env.orm()).oauth.createUser({
      storeId: integer(values.store as string | undefined, '--store'),
      email: requireString(values, 'email'),
      password: requireString(values, 'password'),
    });
  },
  'apps:uninstall': async (argv, env) => {
    const { values } = parse(argv, { store: { type: 'string' }, client: { type: 'string' } });
    return operator(await env.orm()).oauth.uninstallApp({
      storeId: integer(values.store as string | undefined, '--store'),
      clientId: requireString(values, 'client'),
    });
  },
  'site:publish': async (argv, env) => sitePublished(argv, env, true),
  'site:unpublish': async (argv, env) => sitePublished(argv, env, false),
  'own-goods:create': async (argv, env) => {
    const { values } = parse(argv, {
      store: { type: 'string' },
      sku: { type: 'string' },
      name: { type: 'string' },
      price: { type: 'string' },
      cost: { type: 'string' },
      stock: { type: 'string' },
    });
    return operator(await env.orm()).listings.createOwnGoods({
      storeId: integer(values.store as string | undefined, '--store'),
      sku: requireString(values, 'sku'),
      name: requireString(values, 'name'),
      priceCents: integer(values.price as string | undefined, '--price'),
      costCents: values.cost === undefined ? undefined : integer(values.cost as string, '--cost'),
      stock: integer(values.stock as string | undefined, '--stock'),
    });
  },
  'orders:create-storefront': async (argv, env) => {
    const { values } = parse(argv, {
      store: { type: 'string' },
      item: { type: 'string', multiple: true },
      channel: { type: 'string' },
      email: { type: 'string' },
      name: { type: 'string' },
      phone: { type: 'string' },
      address: { type: 'string' },
      city: { type: 'string' },
      state: { type: 'string' },
      zip: { type: 'string' },
      country: { type: 'string' },
    });
    const items = ((values.item as unknown as string[] | undefined) ?? []).map(parseItem);
    if (!items.length) throw new UsageError('at least one --item PRODUCT_ID[:VARIANT_ID][xQTY] is required');
    const str = (k: string, fallback: string) => (values[k] as string | undefined) ?? fallback;
    return operator(await env.orm()).orders.checkoutStorefront({
      storeId: integer(values.store as string | undefined, '--store'),
      channel: str('channel', 'direct') as 'direct',
      customer: {
        email: str('email', 'buyer@example.com'),
        name: str('name', 'Demo Buyer'),
        phone: str('phone', ''),
      },
      shipping: {
        address: str('address', '1 Demo Street'),
        address2: '',
        city: str('city', 'Sydney'),
        state: str('state', 'NSW'),
        zip: str('zip', '2000'),
        country: str('country', 'AU'),
      },
      items,
    });
  },
  'orders:advance': async (argv, env) => {
    const { values, positionals } = parse(argv, { tracking: { type: 'string' }, note: { type: 'string' } });
    const [id, status] = positionals;
    const statuses = ['pending', 'processing', 'fulfilled', 'shipped', 'delivered', 'cancelled'] as const;
    if (!statuses.includes(status as never))
      throw new UsageError(`STATUS must be one of ${statuses.join(', ')}`);
    return operator(await env.orm()).orders.advance({
      orderId: integer(id, 'ORDER_ID'),
      status: status as (typeof statuses)[number],
      tracking: values.tracking as string | undefined,
      note: values.note as string | undefined,
    });
  },
  'stock:set': async (argv, env) => {
    const { values, positionals } = parse(argv, { variant: { type: 'string' } });
    const [product, quantity] = positionals;
    return operator(await env.orm()).inventory.setStock({
      productId: integer(product, 'PRODUCT_ID'),
      quantity: integer(quantity, 'QTY'),
      variantId: values.variant === undefined ? undefined : integer(values.variant as string, '--variant'),
    });
  },
  'skus:map': async (argv, env) => {
    const { values } = parse(argv, {
      store: { type: 'string' },
      sku: { type: 'string' },
      product: { type: 'string' },
      variant: { type: 'string' },
    });
    return operator(await env.orm()).externalOrders.mapSku({
      storeId: integer(values.store as string | undefined, '--store'),
      sku: requireString(values, 'sku'),
      productId: integer(values.product as string | undefined, '--product'),
      variantId: values.variant === undefined ? undefined : integer(values.variant as string, '--variant'),
    });
  },
  'mail:list': async (argv, env) => {
    const { values } = parse(argv, { status: { type: 'string' } });
    const status = values.status as string | undefined;
    if (status !== undefined && !['queued', 'sent', 'held', 'failed'].includes(status)) {
      throw new UsageError('--status must be queued, sent, held or failed');
    }
    return operator(await env.orm()).mail.list({ status: status as 'held' | undefined });
  },
  'readiness:run': async (_argv, env) => operator(await env.orm()).catalogue.runReadinessPass(),
  ...catalogueCommands(async (env) => operator(await env.orm())),
  'openapi:write': async (argv) => {
    const { positionals } = parse(argv, {});
    const file = positionals[0] ?? 'openapi.json';
    await writeFile(file, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
    return { written: file };
  },
};

/** `site:publish --store ID` / `site:unpublish --store ID`: fires site.published / site.unpublished. */
async function sitePublished(argv: string[], env: Parameters<Command>[1], published: boolean) {
  const { values } = parse(argv, { store: { type: 'string' } });
  return operator(await env.orm()).store.setPublished({
    storeId: integer(values.store as string | undefined, '--store'),
    published,
  });
}

/** `12`, `12x3`, `12:45x3` → product 12 (variant 45), quantity 3. */
function parseItem(spec: string) {
  const m = /^(\d+)(?::(\d+))?(?:x(\d+))?$/.exec(spec);
  if (!m) throw new UsageError(`--item ${spec}: expected PRODUCT_ID[:VARIANT_ID][xQTY]`);
  return {
    product_id: Number(m[1]),
    ...(m[2] ? { variant_id: Number(m[2]) } : {}),
    quantity: m[3] ? Number(m[3]) : 1,
  };
}

async function main() {
  const [name, ...argv] = process.argv.slice(2);
  const json = argv.includes('--json');
  const command = name ? commands[name] : undefined;
  if (!command) {
    console.error(`usage: npm run cli -- <command> [--json]\ncommands: ${Object.keys(commands).join(', ')}`);
    process.exit(2);
  }
  loadEnvFile();
  const loaded = loadConfig();
  const config = { ...loaded, SECRET_KEY: await resolveSecretKey(loaded) };
  settings = domainSettingsOf(config);
  let orm: Orm | undefined;
  let stopDb: (() => Promise<void>) | undefined;
  const env = {
    json,
    orm: async () => {
      const db = await connectDatabase(config, createLogger('silent'));
      stopDb = db.stop;
      orm = await openOrm(db.url, 4);
      await migrateDirect(orm, db.url, config.DATABASE_DIRECT_URL);
      return orm;
    },
  };
  try {
    const result = await command(argv, env);
    console.log(json ? JSON.stringify(result) : JSON.stringify(result, null, 2));
  } catch (err) {
    const { category, message } = describe(err);
    if (json) console.log(JSON.stringify({ error: category, message }));
    else console.error(`error: ${message}`);
    process.exitCode = 1;
  } finally {
    await orm?.close(true);
    await stopDb?.();
  }
  process.exit(process.exitCode ?? 0);
}

function describe(err: unknown): { category: string; message: string } {
  if (err instanceof UsageError) return { category: 'bad_request', message: err.message };
  // A procedure's failure comes wrapped by tRPC; a service called directly throws the AppError itself.
  if (err instanceof TRPCError || err instanceof AppError) {
    const { body } = shapeError(err);
    const details = body.details?.map((d) => `${d.path}: ${d.message}`).join('; ');
    return { category: body.error, message: details ? `${body.message}` : body.message };
  }
  return {
    category: 'server_error',
    message: err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err),
  };
}

await main();
