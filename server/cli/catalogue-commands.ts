import { type Flags, integer, optionalString, requireString, UsageError } from './args.ts';
import { type CommandDef, command } from './command.ts';

const optionalInt = (v: unknown, name: string) => (v === undefined ? undefined : integer(v, name));

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

const priceFlags: Flags = {
  'wholesale-price': { type: 'string', value: 'CENTS', help: 'the wholesale price' },
  'retail-price': { type: 'string', value: 'CENTS', help: 'the recommended retail price' },
};
const variantFields: Flags = {
  sku: { type: 'string', value: 'S', help: "the variant's SKU" },
  title: { type: 'string', value: 'T', help: "the variant's title" },
  option: { type: 'string', multiple: true, value: 'NAME=VALUE', help: 'an option value; repeat it' },
};
const productId = (positionals: string[]) => integer(positionals[0], 'PRODUCT_ID');

/**
 * The operator's catalogue maintenance: a product's fields, its withdrawal and reinstatement, its
 * variants and goods received, and how one store presents a product it lists. Each command is one
 * internal procedure, with its validation.
 */
export const catalogueCommands: CommandDef[] = [
  command({
    name: 'stock:receive',
    synopsis: 'PRODUCT_ID [--variant ID] QTY',
    description: "goods received: adds to a variant's stock (fans out like `stock:set`)",
    flags: { variant: { type: 'string', value: 'ID', help: 'the variant (default: the product itself)' } },
    run: async ({ values, positionals }, env) =>
      (await env.operator()).inventory.receiveStock({
        productId: productId(positionals),
        quantity: integer(positionals[1], 'QTY'),
        variantId: optionalInt(values.variant, '--variant'),
      }),
  }),
  command({
    name: 'catalogue:update',
    synopsis:
      'PRODUCT_ID [--name N] [--description D] [--image-url U|none] [--image U]… [--category SLUG|none] [--weight-oz W|none] [--dimensions WxDxH|none] [--wholesale-price CENTS] [--retail-price CENTS] [--hidden-channels a,b]',
    description: 'changes a catalogue product; every listing store gets `product.updated`',
    flags: {
      name: { type: 'string', value: 'N', help: "the product's name" },
      description: { type: 'string', value: 'D', help: 'its description' },
      'image-url': { type: 'string', value: 'U|none', help: 'its main image' },
      image: { type: 'string', multiple: true, value: 'U', help: 'its gallery, replaced; repeat it' },
      category: { type: 'string', value: 'SLUG|none', help: 'its category' },
      'weight-oz': { type: 'string', value: 'W|none', help: 'shipping weight in ounces' },
      dimensions: { type: 'string', value: 'WxDxH|none', help: 'assembled width, depth, height in cm' },
      'hidden-channels': { type: 'string', value: 'a,b', help: 'channels it is hidden from ("" for none)' },
      ...priceFlags,
    },
    run: async ({ values, positionals }, env) => {
      const dims = clearable(values.dimensions, (s) => {
        const m = /^(\d+(?:\.\d+)?)x(\d+(?:\.\d+)?)x(\d+(?:\.\d+)?)$/.exec(s);
        if (!m) throw new UsageError('--dimensions must be WIDTHxDEPTHxHEIGHT in cm, or none');
        return { width_cm: Number(m[1]), depth_cm: Number(m[2]), height_cm: Number(m[3]) };
      });
      const images = values.image as string[] | undefined;
      return (await env.operator()).catalogue.updateProduct({
        productId: productId(positionals),
        name: optionalString(values.name),
        description: optionalString(values.description),
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
  }),
  command({
    name: 'catalogue:withdraw',
    synopsis: 'PRODUCT_ID',
    description: 'takes a product out of the catalogue (`product.deleted` to its stores)',
    flags: {},
    run: async ({ positionals }, env) =>
      (await env.operator()).catalogue.withdrawProduct({ productId: productId(positionals) }),
  }),
  command({
    name: 'catalogue:reinstate',
    synopsis: 'PRODUCT_ID',
    description: 'brings a withdrawn product back into the catalogue',
    flags: {},
    run: async ({ positionals }, env) =>
      (await env.operator()).catalogue.reinstateProduct({ productId: productId(positionals) }),
  }),
  command({
    name: 'catalogue:variant-add',
    synopsis:
      'PRODUCT_ID --sku S --title T [--option NAME=VALUE]… [--stock QTY] [--wholesale-price CENTS] [--retail-price CENTS]',
    description: 'adds a variant',
    flags: {
      ...variantFields,
      stock: { type: 'string', value: 'QTY', help: 'its stock (default 0)' },
      ...priceFlags,
    },
    run: async ({ values, positionals }, env) =>
      (await env.operator()).catalogue.addVariant({
        productId: productId(positionals),
        sku: requireString(values, 'sku'),
        title: requireString(values, 'title'),
        option_values: options(values.option) ?? {},
        wholesale_price_cents: optionalInt(values['wholesale-price'], '--wholesale-price'),
        retail_price_cents: optionalInt(values['retail-price'], '--retail-price'),
        stock: optionalInt(values.stock, '--stock') ?? 0,
      }),
  }),
  command({
    name: 'catalogue:variant-update',
    synopsis:
      'PRODUCT_ID VARIANT_ID [--sku S] [--title T] [--option NAME=VALUE]… [--wholesale-price CENTS] [--retail-price CENTS]',
    description: 'changes a variant',
    flags: { ...variantFields, ...priceFlags },
    run: async ({ values, positionals }, env) =>
      (await env.operator()).catalogue.updateVariant({
        productId: productId(positionals),
        variantId: integer(positionals[1], 'VARIANT_ID'),
        sku: optionalString(values.sku),
        title: optionalString(values.title),
        option_values: options(values.option),
        wholesale_price_cents: optionalInt(values['wholesale-price'], '--wholesale-price'),
        retail_price_cents: optionalInt(values['retail-price'], '--retail-price'),
      }),
  }),
  command({
    name: 'catalogue:variant-retire',
    synopsis: 'PRODUCT_ID VARIANT_ID',
    description: 'retires a variant',
    flags: {},
    run: async ({ positionals }, env) =>
      (await env.operator()).catalogue.retireVariant({
        productId: productId(positionals),
        variantId: integer(positionals[1], 'VARIANT_ID'),
      }),
  }),
  command({
    name: 'listings:retitle',
    synopsis: '--store ID PRODUCT_ID --title T|--clear',
    description: "the store's own title for a listing (`--clear` goes back to the product's)",
    flags: {
      store: { type: 'string', value: 'ID', help: 'the store id' },
      title: { type: 'string', value: 'T', help: "the store's title" },
      clear: { type: 'boolean', help: "drop the store's title" },
    },
    run: async ({ values, positionals }, env) => {
      if ((values.title === undefined) === !values.clear)
        throw new UsageError('give exactly one of --title T or --clear');
      return (await env.operator()).listings.retitle({
        storeId: integer(values.store, '--store'),
        productId: productId(positionals),
        title: values.clear ? null : (values.title as string),
      });
    },
  }),
  command({
    name: 'listings:channels',
    synopsis: '--store ID PRODUCT_ID --hidden a,b',
    description: 'the channels a listing is hidden from',
    flags: {
      store: { type: 'string', value: 'ID', help: 'the store id' },
      hidden: { type: 'string', value: 'a,b', help: 'a comma list of channels, or "" for none' },
    },
    run: async ({ values, positionals }, env) => {
      if (values.hidden === undefined)
        throw new UsageError('--hidden is required (a comma list, or "" for none)');
      return (await env.operator()).listings.setChannels({
        storeId: integer(values.store, '--store'),
        productId: productId(positionals),
        hidden_channels: channels(values.hidden) ?? [],
      });
    },
  }),
];
