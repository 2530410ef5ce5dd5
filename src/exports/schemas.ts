import { z } from 'zod';
import { facetsInput } from '../catalogue/schemas.ts';
import { listOrdersInput } from '../orders/schemas.ts';
import { described, intParam } from '../trpc/params.ts';

export const EXPORT_TYPES = ['catalogue', 'listings', 'orders'] as const;
export type ExportType = (typeof EXPORT_TYPES)[number];
export const EXPORT_STATUSES = ['queued', 'running', 'completed', 'failed', 'expired'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

/** The filters of GET /api/v1/products, without its paging and sort: an export is the whole match. */
export const catalogueExportFilters = facetsInput.strict();
/** The filters of GET /api/v1/orders, without its paging and sort. */
export const ordersExportFilters = listOrdersInput
  .omit({ page: true, limit: true, sort_by: true, order: true })
  .strict();
/** The store's live listings, whole: no filter. */
export const listingsExportFilters = z.object({}).strict();

export const FILTERS_OF = {
  catalogue: catalogueExportFilters,
  listings: listingsExportFilters,
  orders: ordersExportFilters,
} as const;

/**
 * Every filter of either list, for the body's shape and its documentation (strict: an unknown key is a
 * 400); the export's type then takes only its own list's (`filtersOf`).
 */
const anyTypeFilters = z.strictObject({ ...catalogueExportFilters.shape, ...ordersExportFilters.shape });

export type CatalogueExportFilters = z.output<typeof catalogueExportFilters>;
export type OrdersExportFilters = z.output<typeof ordersExportFilters>;

/** The filters of one type, parsed by that type's schema: a field another type has is refused. */
function filtersOf(
  v: { type: ExportType; filters?: Record<string, unknown> | undefined },
  ctx: z.RefinementCtx,
) {
  const parsed = FILTERS_OF[v.type].safeParse(v.filters ?? {});
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) {
    ctx.addIssue({
      code: 'custom',
      path: ['filters', ...issue.path.map(String)],
      message: issue.message,
      input: v,
    });
  }
  return z.NEVER;
}

export const createExportInput = z
  .object({
    type: z.enum(EXPORT_TYPES).meta({
      description:
        "`catalogue`: every catalogue product the filters match, as GET /api/v1/products lists them; `listings`: the store's " +
        "live listings as GET /api/v1/my-products?include=variants lists them; `orders`: the orders of the key's mode as " +
        'GET /api/v1/orders lists them.',
      example: 'catalogue',
    }),
    filters: anyTypeFilters.optional().meta({
      description:
        'For `catalogue`, the filter parameters of GET /api/v1/products; for `orders`, those of GET /api/v1/orders ' +
        '(no page, limit or sort: an export is the whole match); `listings` takes none. JSON values: `true`, numbers. ' +
        'An unknown or misspelt filter is a 400, never ignored.',
      example: { category: 'furniture', in_stock: true },
    }),
  })
  .strict()
  // A transform, not a refinement: trpc-to-openapi keeps a transformed object strict (listings' bulkInput).
  .transform((v, ctx) => ({ type: v.type, filters: filtersOf(v, ctx) as Record<string, unknown> }));
export type CreateExportInput = z.output<typeof createExportInput>;

const exportId = z
  .string()
  .regex(/^exp_[1-9]\d{0,17}$/, 'must be an export id (exp_ and digits)')
  .meta({ description: 'The export id.', example: 'exp_42' });

export const getExportInput = z.object({ id: exportId });
export type GetExportInput = z.output<typeof getExportInput>;

export const listExportsInput = z.object({
  limit: intParam(1, 100, described('Exports per page, 1 to 100; default 20.')).optional(),
  cursor: z
    .string()
    .max(300)
    .meta(described('A next_cursor from an earlier page; absent = the newest first.'))
    .optional(),
});
export type ListExportsInput = z.output<typeof listExportsInput>;

const time = (description: string) =>
  z.string().nullable().meta({ description, example: '2026-11-29T10:00:00.000Z' });
const count = (description: string, example: number) => z.int().nullable().meta({ description, example });

export const exportObject = z
  .object({
    id: exportId,
    object: z.literal('export'),
    type: z.enum(EXPORT_TYPES),
    status: z.enum(EXPORT_STATUSES).meta({
      description:
        '`queued` → `running` → `completed` or `failed`; a completed export becomes `expired` when its file is deleted (7 days).',
      example: 'completed',
    }),
    filters: z.record(z.string(), z.unknown()).meta(described('The filters as given (parsed).')),
    livemode: z.boolean().meta(described('`false` for an export made with a test key (test orders).')),
    rows_written: z.int().meta({ description: 'Lines written so far: the progress.', example: 2000 }),
    row_count: count('Lines in the file, once completed.', 2000),
    bytes: count('Size of the gzip file, once completed.', 183_500),
    url: z.string().nullable().meta({
      description:
        'Once completed: a signed download url (no API key needed; valid until `url_expires_at`). Every GET signs a fresh one.',
      example: 'https://api.stockless.example/api/v1/exports/exp_42/file?expires=1764410400&signature=Xb3…',
    }),
    url_expires_at: time('When `url` stops working.'),
    continuation: z
      .object({
        events_cursor: z
          .string()
          .meta(
            described(
              'GET /api/v1/events?order=asc&cursor=… from here returns every change the file does not hold (and may repeat a few it does).',
            ),
          ),
        inventory_cursor: z
          .string()
          .nullable()
          .meta(
            described(
              'Listings exports: GET /api/v1/inventory?updated_since=… continues the feed from the file.',
            ),
          ),
      })
      .nullable()
      .meta(described('Once completed: where the feeds continue from the snapshot the file was read in.')),
    error: z
      .object({ code: z.string(), message: z.string() })
      .nullable()
      .meta(described('Why a failed export failed.')),
    created_at: z.string().meta({ example: '2026-11-29T10:00:00.000Z' }),
    started_at: time('When the job began reading.'),
    completed_at: time('When it completed or failed.'),
    expires_at: time('When its file is deleted (completed exports).'),
  })
  .meta({ id: 'Export', description: 'A bulk export: an asynchronous JSON Lines (gzip) file of a list.' });
export type ExportObject = z.output<typeof exportObject>;

export const exportAnswer = z.object({ export: exportObject });

export const listExportsOutput = z.object({
  exports: z.array(exportObject),
  next_cursor: z
    .string()
    .nullable()
    .meta(described('Pass back as cursor for older exports; null at the end.')),
  has_more: z.boolean(),
});
