import { z } from 'zod';
import { AppError, notFound } from '../errors.ts';
import { isFeatureEnabled } from '../platform/features.ts';
import { router } from '../trpc/init.ts';
import { described, intParam } from '../trpc/params.ts';
import { partnerProcedure } from '../trpc/procedures.ts';
import { readInventory } from './read.ts';

const variant = z.object({
  id: z.int(),
  sku: z.string(),
  title: z.string(),
  option_values: z.record(z.string(), z.string()),
  quantity_available: z.int(),
  available_for_sale: z.boolean(),
});

export const inventoryOutput = z.object({
  items: z.array(
    z.object({
      product_id: z.int(),
      sku: z.string(),
      name: z.string(),
      listed: z.boolean().meta(described('false once the store removed the listing.')),
      withdrawn_at: z.iso
        .datetime()
        .nullable()
        .meta(
          described(
            'When the product was withdrawn from the catalogue, else null: a withdrawn product has no stock to sell.',
          ),
        ),
      in_stock: z.boolean(),
      stock_quantity: z.int(),
      variants: z.array(variant),
      updated_at: z.iso.datetime(),
    }),
  ),
  next_cursor: z.string().meta(described('Pass back as updated_since; always present.')),
  has_more: z.boolean(),
});

/**
 * The page schema as the contract (OpenAPI document, types of the tRPC client), without tRPC parsing
 * every page again on its way out (500 items and their variants: ~0.8 ms of a ~16 ms page on the
 * bench machine). What holds the shape instead: the resolver's result is type-checked against this
 * schema; `readInventory` takes each field from a typed column (PostgreSQL names the variant fields
 * as the contract does); and test/inventory.test.ts parses real pages, listed and removed, sellable
 * and not, and the empty page at the head, with `inventoryOutput` and requires each unchanged.
 */
function documentedOnly<T extends z.ZodType>(schema: T): T {
  return Object.create(schema, { parse: { value: <V>(value: V): V => value } });
}

export const inventoryRouter = router({
  feed: partnerProcedure
    .use(async ({ ctx, next }) => {
      // Switched off, the read does not exist: 404 whatever the parameters, and nothing is read. The
      // page statement reads the switch itself (see `feedPage`): a page with items was read with it
      // on. An empty page or a refusal (bad parameter, bad cursor) asks the switch before answering.
      const result = await next();
      const empty = !result.ok || (result.data as { items: unknown[] }).items.length === 0;
      if (empty && !(await isFeatureEnabled(ctx.em, 'inventory_read'))) {
        throw notFound('Inventory reads are switched off on this platform', 'FEATURE_DISABLED');
      }
      return result;
    })
    .meta({
      appScope: 'read_inventory',
      rateLimit: 'inventory',
      openapi: {
        method: 'GET',
        path: '/api/v1/inventory',
        operationId: 'listInventory',
        tags: ['Catalogue'],
        summary: 'Stock available to sell, by change cursor',
        description:
          'One item per product the store lists (or listed: a removed listing comes back with `listed: false`), ' +
          'oldest change first, with its variants. Follow `next_cursor` (as `updated_since`) to read every change ' +
          'exactly in order; a later call with the last cursor returns only what changed since. A cursor is ' +
          "opaque and belongs to the store that got it. Rate limited by the store's catalogue-read limit.",
        errorResponses: {
          400: 'Invalid cursor or limit',
          401: 'Missing or invalid credential',
          403: 'Scope refused',
          404: 'Inventory reads are switched off',
          429: 'Rate limited',
        },
      },
    })
    .input(
      z.object({
        updated_since: z
          .string()
          .max(300)
          .optional()
          .meta(described('A next_cursor from an earlier page; absent = from the start.')),
        limit: intParam(
          1,
          500,
          described(
            'Items per page: at most the platform page size, 500 unless the platform set it lower; default the page size.',
          ),
        ).optional(),
      }),
    )
    .output(documentedOnly(inventoryOutput))
    .query(async ({ ctx, input }) => {
      const max = ctx.settings.pageSizeMax;
      if (input.limit !== undefined && input.limit > max) {
        throw new AppError('bad_request', 'VALIDATION_FAILED', `Invalid request: limit: at most ${max}`, {
          extra: { details: [{ path: 'limit', message: `at most ${max}` }] },
        });
      }
      return readInventory(ctx.em, ctx.actor.storeId, input.updated_since, input.limit ?? max);
    }),
});
