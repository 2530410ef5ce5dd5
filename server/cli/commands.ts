import { writeFile } from 'node:fs/promises';
import { integer, optionalString, type Parsed, requireString, UsageError } from './args.ts';
import { catalogueCommands } from './catalogue-commands.ts';
import { type CommandDef, type CommandEnv, command } from './command.ts';
import { listenCommand, triggerCommand } from './dev-commands.ts';
import { keysList, storesList, webhooksList } from './list-commands.ts';
import { progressBar } from './progress.ts';

const store = { type: 'string', value: 'ID', help: 'the store id' } as const;
const variant = { type: 'string', value: 'ID', help: 'the variant (default: the product itself)' } as const;
const ORDER_STATUSES = ['pending', 'processing', 'fulfilled', 'shipped', 'delivered', 'cancelled'] as const;

/** `site:publish --store ID` / `site:unpublish --store ID`: fires site.published / site.unpublished. */
async function sitePublished({ values }: Parsed, env: CommandEnv, published: boolean) {
  return (await env.operator()).store.setPublished({ storeId: integer(values.store, '--store'), published });
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

/**
 * Every operator command, in the order the help and the README list them. Most are one internal
 * procedure (`internal.<domain>.<procedure>`), with its validation; the database is opened only
 * when a command runs. Nothing heavy is imported here (the domains load with `./run.ts`), so help
 * answers at once.
 */
export const COMMANDS: readonly CommandDef[] = [
  command({
    name: 'stores:create',
    synopsis: '--name N [--slug S] [--email E]',
    description: 'creates a store',
    flags: {
      name: { type: 'string', value: 'N', help: "the store's name" },
      slug: { type: 'string', value: 'S', help: 'its slug (default: from the name)' },
      email: { type: 'string', value: 'E', help: "the owner's email" },
    },
    run: async ({ values }, env) =>
      (await env.operator()).store.create({
        name: requireString(values, 'name'),
        slug: optionalString(values.slug),
        ownerEmail: optionalString(values.email),
      }),
  }),
  storesList,
  command({
    name: 'keys:create',
    synopsis: '--store ID --scope read|read_write [--test] [--name N]',
    description: 'creates an API key, shown once',
    flags: {
      store,
      scope: { type: 'string', value: 'read|read_write', help: 'what the key may do' },
      test: { type: 'boolean', help: 'an sl_test_ key (default: sl_live_)' },
      name: { type: 'string', value: 'N', help: 'a label for the key' },
    },
    run: async ({ values }, env) => {
      const scope = requireString(values, 'scope');
      if (scope !== 'read' && scope !== 'read_write')
        throw new UsageError('--scope must be read or read_write');
      return (await env.operator()).store.createApiKey({
        storeId: integer(values.store, '--store'),
        scope,
        mode: values.test ? 'test' : 'live',
        name: optionalString(values.name),
      });
    },
  }),
  keysList,
  command({
    name: 'keys:revoke',
    synopsis: 'KEY_ID',
    description: 'revokes a key at once',
    flags: {},
    run: async ({ positionals }, env) =>
      (await env.operator()).store.revokeApiKey({ id: integer(positionals[0], 'KEY_ID') }),
  }),
  webhooksList,
  command({
    name: 'seed',
    synopsis: '[--products N] [--demo]',
    description: 'adds N deterministic catalogue products (progress bar on a terminal)',
    flags: {
      products: { type: 'string', value: 'N', help: 'how many products (default 1000)' },
      demo: { type: 'boolean', help: 'the demo store and its keys too' },
    },
    run: async ({ values }, env) => {
      const count = values.products === undefined ? 1000 : integer(values.products, '--products');
      const orm = await env.orm();
      const bar = env.json || !process.stderr.isTTY ? undefined : progressBar('products');
      if (values.demo) {
        const { seedDemo } = await import('../../src/demo/demo-store.ts');
        return seedDemo(orm.em.fork(), count, bar);
      }
      const { seedProducts } = await import('../../src/demo/seed-catalogue.ts');
      // The seed scores its products as it inserts them: no readiness pass to follow.
      const range = await seedProducts(orm.em.fork(), count, bar);
      // A bulk load leaves the planner without statistics and the facet deltas full of dead rows.
      await orm.em
        .fork()
        .getConnection()
        .execute('VACUUM (ANALYZE) products, product_variants, facet_cell_deltas');
      return { seeded: count, first_id: range.first, last_id: range.last };
    },
  }),
  command({
    name: 'platform:set',
    synopsis: 'inventory_read|external_orders on|off',
    description: 'platform switches',
    flags: {},
    run: async ({ positionals }, env) => {
      const [feature, state] = positionals;
      if (feature !== 'inventory_read' && feature !== 'external_orders') {
        throw new UsageError('FEATURE must be inventory_read or external_orders');
      }
      if (state !== 'on' && state !== 'off') throw new UsageError('state must be on or off');
      return (await env.operator()).platform.setFeature({ feature, enabled: state === 'on' });
    },
  }),
  command({
    name: 'own-goods:create',
    synopsis: '--store ID --sku S --name N --price CENTS --stock QTY [--cost CENTS]',
    description: "a product of the store's own supplier, listed as own goods",
    flags: {
      store,
      sku: { type: 'string', value: 'S', help: 'its SKU (unique in the store)' },
      name: { type: 'string', value: 'N', help: "the product's name" },
      price: { type: 'string', value: 'CENTS', help: 'retail price' },
      cost: { type: 'string', value: 'CENTS', help: 'what it costs the store' },
      stock: { type: 'string', value: 'QTY', help: 'stock on hand' },
    },
    run: async ({ values }, env) =>
      (await env.operator()).listings.createOwnGoods({
        storeId: integer(values.store, '--store'),
        sku: requireString(values, 'sku'),
        name: requireString(values, 'name'),
        priceCents: integer(values.price, '--price'),
        costCents: values.cost === undefined ? undefined : integer(values.cost, '--cost'),
        stock: integer(values.stock, '--stock'),
      }),
  }),
  command({
    name: 'orders:create-storefront',
    synopsis: '--store ID --item PRODUCT[:VARIANT][xQTY]… [--channel C] [--email E] [--name N]',
    description: 'a buyer checkout on the store (demo and tests)',
    flags: {
      store,
      item: { type: 'string', multiple: true, value: 'PRODUCT[:VARIANT][xQTY]', help: 'a line; repeat it' },
      channel: { type: 'string', value: 'C', help: 'the sales channel (default direct)' },
      email: { type: 'string', value: 'E', help: "the buyer's email" },
      name: { type: 'string', value: 'N', help: "the buyer's name" },
      phone: { type: 'string', value: 'P', help: "the buyer's phone" },
      address: { type: 'string', value: 'A', help: 'shipping street address' },
      city: { type: 'string', value: 'C', help: 'shipping city' },
      state: { type: 'string', value: 'S', help: 'shipping state' },
      zip: { type: 'string', value: 'Z', help: 'shipping postcode' },
      country: { type: 'string', value: 'CC', help: 'shipping country code' },
    },
    run: async ({ values }, env) => {
      const items = ((values.item as string[] | undefined) ?? []).map(parseItem);
      if (!items.length)
        throw new UsageError('at least one --item PRODUCT_ID[:VARIANT_ID][xQTY] is required');
      const str = (k: string, fallback: string) => optionalString(values[k]) ?? fallback;
      return (await env.operator()).orders.checkoutStorefront({
        storeId: integer(values.store, '--store'),
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
  }),
  command({
    name: 'orders:advance',
    synopsis: 'ORDER_ID STATUS [--tracking T] [--note N]',
    description: 'moves an order along the state machine',
    flags: {
      tracking: { type: 'string', value: 'T', help: 'the tracking number (when shipping)' },
      note: { type: 'string', value: 'N', help: 'a note kept with the change' },
    },
    run: async ({ values, positionals }, env) => {
      const [id, status] = positionals;
      if (!ORDER_STATUSES.includes(status as never))
        throw new UsageError(`STATUS must be one of ${ORDER_STATUSES.join(', ')}`);
      return (await env.operator()).orders.advance({
        orderId: integer(id, 'ORDER_ID'),
        status: status as (typeof ORDER_STATUSES)[number],
        tracking: optionalString(values.tracking),
        note: optionalString(values.note),
      });
    },
  }),
  command({
    name: 'mail:list',
    synopsis: '[--status queued|sent|held|failed]',
    description: 'the mail outbox, newest first',
    flags: { status: { type: 'string', value: 'queued|sent|held|failed', help: 'only mail in this state' } },
    run: async ({ values }, env) => {
      const status = optionalString(values.status);
      if (status !== undefined && !['queued', 'sent', 'held', 'failed'].includes(status)) {
        throw new UsageError('--status must be queued, sent, held or failed');
      }
      return (await env.operator()).mail.list({ status: status as 'held' | undefined });
    },
  }),
  command({
    name: 'stock:set',
    synopsis: 'PRODUCT_ID [--variant ID] QTY',
    description: 'a supplier stock update (fans out to every listing store)',
    flags: { variant },
    run: async ({ values, positionals }, env) =>
      (await env.operator()).inventory.setStock({
        productId: integer(positionals[0], 'PRODUCT_ID'),
        quantity: integer(positionals[1], 'QTY'),
        variantId: values.variant === undefined ? undefined : integer(values.variant, '--variant'),
      }),
  }),
  ...catalogueCommands,
  command({
    name: 'skus:map',
    synopsis: '--store ID --sku S --product ID [--variant ID]',
    description: 'maps a marketplace SKU for external orders',
    flags: {
      store,
      sku: { type: 'string', value: 'S', help: 'the marketplace SKU' },
      product: { type: 'string', value: 'ID', help: 'the catalogue product it stands for' },
      variant,
    },
    run: async ({ values }, env) =>
      (await env.operator()).externalOrders.mapSku({
        storeId: integer(values.store, '--store'),
        sku: requireString(values, 'sku'),
        productId: integer(values.product, '--product'),
        variantId: values.variant === undefined ? undefined : integer(values.variant, '--variant'),
      }),
  }),
  command({
    name: 'users:create',
    synopsis: '--store ID --email E --password P',
    description: 'a dashboard user, who signs in on the OAuth consent page',
    flags: {
      store,
      email: { type: 'string', value: 'E', help: 'their sign-in email' },
      password: { type: 'string', value: 'P', help: 'their password' },
    },
    run: async ({ values }, env) =>
      (await env.operator()).oauth.createUser({
        storeId: integer(values.store, '--store'),
        email: requireString(values, 'email'),
        password: requireString(values, 'password'),
      }),
  }),
  command({
    name: 'apps:uninstall',
    synopsis: '--store ID --client CLIENT_ID',
    description: "ends a partner app's grant; its tokens stop at once",
    flags: { store, client: { type: 'string', value: 'CLIENT_ID', help: "the app's OAuth client id" } },
    run: async ({ values }, env) =>
      (await env.operator()).oauth.uninstallApp({
        storeId: integer(values.store, '--store'),
        clientId: requireString(values, 'client'),
      }),
  }),
  command({
    name: 'site:publish',
    synopsis: '--store ID',
    description: 'publishes the storefront (`site.published`)',
    flags: { store },
    run: (args, env) => sitePublished(args, env, true),
  }),
  command({
    name: 'site:unpublish',
    synopsis: '--store ID',
    description: 'unpublishes the storefront (`site.unpublished`)',
    flags: { store },
    run: (args, env) => sitePublished(args, env, false),
  }),
  listenCommand,
  triggerCommand,
  command({
    name: 'readiness:run',
    synopsis: '',
    description: 'runs the nightly readiness pass now',
    flags: {},
    run: async (_args, env) => (await env.operator()).catalogue.runReadinessPass(),
  }),
  command({
    name: 'openapi:write',
    synopsis: '[FILE]',
    description: 'regenerates `openapi.json` from the routers (`npm run openapi`)',
    flags: {},
    run: async ({ positionals }) => {
      const file = positionals[0] ?? 'openapi.json';
      const { buildOpenApiDocument } = await import('../contract/document.ts');
      await writeFile(file, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
      return { written: file };
    },
  }),
];

export const findCommand = (name: string) => COMMANDS.find((c) => c.name === name);
