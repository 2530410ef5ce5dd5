import type { createCaller } from '../../src/router.ts';
import type { Orm } from '../orm.ts';
import { integer, parse, requireString, UsageError } from './args.ts';

type Operator = ReturnType<typeof createCaller>['internal'];
type Env = { orm: () => Promise<Orm>; json: boolean };
type Command = (argv: string[], env: Env) => Promise<unknown>;

const optionalInt = (v: unknown, name: string) => (v === undefined ? undefined : integer(v as string, name));

/** `none` clears a field; anything else is parsed. */
function clearable<T>(v: unknown, read: (s: string) => T): T | null | undefined {
  if (v === undefined) return undefined;
  return v === 'none' ? null : read(v as string);
}

function decimal(name: string) {
  return (s: string) => {
    if (!/^\d+(\.\d+)?$/.test(s)) throw new UsageError(`${name} must be a number`);
    return Number(s);
  };
}

/** `--option Colour=Red --option Size=L` → { Colour: 'Red', Size: 'L' }. */
function options(list: unknown): Record<string, string> | undefined {
  const specs = list as string[] | undefined;
  if (!specs?.length) return undefined;
  return Object.fromEntries(
    specs.map((spec) => {
      const at = spec.indexOf('=');
      if (at < 1) throw new UsageError(`--option ${spec}: expected NAME=VALUE`);
      return [spec.slice(0, at), spec.slice(at + 1)];
    }),
  );
}

/** A comma-separated channel list; an empty one shows the product or listing everywhere. */
const channels = (v: unknown) =>
  v === undefined ? undefined : ((v as string).split(',').filter(Boolean) as ['storefront']);

const priceOptions = { 'wholesale-price': { type: 'string' }, 'retail-price': { type: 'string' } } as const;

/**
 * The operator's catalogue maintenance: each command is one internal procedure, with its validation.
 * `operator` opens the database only when a command runs.
 */
export function catalogueCommands(operator: (env: Env) => Promise<Operator>): Record<string, Command> {
  return { ...productCommands(operator), ...variantCommands(operator), ...listingCommands(operator) };
}

/** A product's fields, its withdrawal and reinstatement. */
function productCommands(operator: (env: Env) => Promise<Operator>): Record<string, Command> {
  return {
    'catalogue:update': async (argv, env) => {
      const { values, positionals } = parse(argv, {
        name: { type: 'string' },
        description: { type: 'string' },
        'image-url': { type: 'string' },
        image: { type: 'string', multiple: true },
        category: { type: 'string' },
        'weight-oz': { type: 'string' },
        dimensions: { type: 'string' },
        'hidden-channels': { type: 'string' },
        ...priceOptions,
      });
      const dims = clearable(values.dimensions, (s) => {
        const m = /^(\d+(?:\.\d+)?)x(\d+(?:\.\d+)?)x(\d+(?:\.\d+)?)$/.exec(s);
        if (!m) throw new UsageError('--dimensions must be WIDTHxDEPTHxHEIGHT in cm, or none');
        return { width_cm: Number(m[1]), depth_cm: Number(m[2]), height_cm: Number(m[3]) };
      });
      const images = values.image as unknown as string[] | undefined;
      return (await operator(env)).catalogue.updateProduct({
        productId: integer(positionals[0], 'PRODUCT_ID'),
        name: values.name as string | undefined,
        description: values.description as string | undefined,
        image_url: clearable(values['image-url'], (s) => s),
        images: images?.map((url) => ({ url, alt: '' })),
        category: clearable(values.category, (s) => s),
        weight_oz: clearable(values['weight-oz'], decimal('--weight-oz')),
        dimensions: dims,
        wholesale_price_cents: optionalInt(values['wholesale-price'], '--wholesale-price'),
        retail_price_cents: optionalInt(values['retail-price'], '--retail-price'),
        hidden_channels: channels(values['hidden-channels']),
      });
    },
    'catalogue:withdraw': async (argv, env) => {
      const { positionals } = parse(argv, {});
      return (await operator(env)).catalogue.withdrawProduct({
        productId: integer(positionals[0], 'PRODUCT_ID'),
      });
    },
    'catalogue:reinstate': async (argv, env) => {
      const { positionals } = parse(argv, {});
      return (await operator(env)).catalogue.reinstateProduct({
        productId: integer(positionals[0], 'PRODUCT_ID'),
      });
    },
  };
}

/** A product's variants, and goods received into their stock. */
function variantCommands(operator: (env: Env) => Promise<Operator>): Record<string, Command> {
  return {
    'catalogue:variant-add': async (argv, env) => {
      const { values, positionals } = parse(argv, {
        sku: { type: 'string' },
        title: { type: 'string' },
        option: { type: 'string', multiple: true },
        stock: { type: 'string' },
        ...priceOptions,
      });
      return (await operator(env)).catalogue.addVariant({
        productId: integer(positionals[0], 'PRODUCT_ID'),
        sku: requireString(values, 'sku'),
        title: requireString(values, 'title'),
        option_values: options(values.option) ?? {},
        wholesale_price_cents: optionalInt(values['wholesale-price'], '--wholesale-price'),
        retail_price_cents: optionalInt(values['retail-price'], '--retail-price'),
        stock: optionalInt(values.stock, '--stock') ?? 0,
      });
    },
    'catalogue:variant-update': async (argv, env) => {
      const { values, positionals } = parse(argv, {
        sku: { type: 'string' },
        title: { type: 'string' },
        option: { type: 'string', multiple: true },
        ...priceOptions,
      });
      return (await operator(env)).catalogue.updateVariant({
        productId: integer(positionals[0], 'PRODUCT_ID'),
        variantId: integer(positionals[1], 'VARIANT_ID'),
        sku: values.sku as string | undefined,
        title: values.title as string | undefined,
        option_values: options(values.option),
        wholesale_price_cents: optionalInt(values['wholesale-price'], '--wholesale-price'),
        retail_price_cents: optionalInt(values['retail-price'], '--retail-price'),
      });
    },
    'catalogue:variant-retire': async (argv, env) => {
      const { positionals } = parse(argv, {});
      return (await operator(env)).catalogue.retireVariant({
        productId: integer(positionals[0], 'PRODUCT_ID'),
        variantId: integer(positionals[1], 'VARIANT_ID'),
      });
    },
    'stock:receive': async (argv, env) => {
      const { values, positionals } = parse(argv, { variant: { type: 'string' } });
      return (await operator(env)).inventory.receiveStock({
        productId: integer(positionals[0], 'PRODUCT_ID'),
        quantity: integer(positionals[1], 'QTY'),
        variantId: optionalInt(values.variant, '--variant'),
      });
    },
  };
}

/** How one store presents a product it lists. */
function listingCommands(operator: (env: Env) => Promise<Operator>): Record<string, Command> {
  return {
    'listings:retitle': async (argv, env) => {
      const { values, positionals } = parse(argv, {
        store: { type: 'string' },
        title: { type: 'string' },
        clear: { type: 'boolean' },
      });
      if ((values.title === undefined) === !values.clear)
        throw new UsageError('give exactly one of --title T or --clear');
      return (await operator(env)).listings.retitle({
        storeId: integer(values.store as string | undefined, '--store'),
        productId: integer(positionals[0], 'PRODUCT_ID'),
        title: values.clear ? null : (values.title as string),
      });
    },
    'listings:channels': async (argv, env) => {
      const { values, positionals } = parse(argv, { store: { type: 'string' }, hidden: { type: 'string' } });
      if (values.hidden === undefined)
        throw new UsageError('--hidden is required (a comma list, or "" for none)');
      return (await operator(env)).listings.setChannels({
        storeId: integer(values.store as string | undefined, '--store'),
        productId: integer(positionals[0], 'PRODUCT_ID'),
        hidden_channels: channels(values.hidden) ?? [],
      });
    },
  };
}
