import { errorDoc, errorExample, type RouterDocs } from '../trpc/operation-docs.ts';
import type { exportsRouter } from './router.ts';
import type { ExportObject } from './schemas.ts';

const QUEUED: ExportObject = {
  id: 'exp_42',
  object: 'export',
  type: 'catalogue',
  status: 'queued',
  filters: { category: 'furniture', in_stock: true },
  livemode: true,
  rows_written: 0,
  row_count: null,
  bytes: null,
  url: null,
  url_expires_at: null,
  continuation: null,
  error: null,
  created_at: '2026-11-29T10:00:00.000Z',
  started_at: null,
  completed_at: null,
  expires_at: null,
};

const COMPLETED: ExportObject = {
  ...QUEUED,
  status: 'completed',
  rows_written: 18250,
  row_count: 18250,
  bytes: 1_734_112,
  url: 'https://api.stockless.example/api/v1/exports/exp_42/file?expires=1764414000&signature=3q2-7wYkT0p1mZ8xN4cV6bR2aL9sD5fH0jK7uE1iO3w',
  url_expires_at: '2026-11-29T11:00:00.000Z',
  continuation: {
    events_cursor: 'ZXYxOjEyOjg4MTIzOjA.Jq3Vx0bZ4nR8wYc2LdAk9Q',
    inventory_cursor: null,
  },
  started_at: '2026-11-29T10:00:01.000Z',
  completed_at: '2026-11-29T10:00:04.000Z',
  expires_at: '2026-12-06T10:00:04.000Z',
};

export const exportsDocs: RouterDocs<typeof exportsRouter> = {
  create: {
    responseExample: () => ({ export: QUEUED }),
    requestExamples: {
      catalogue: {
        summary: 'The catalogue under filters',
        value: { type: 'catalogue', filters: { category: 'furniture', in_stock: true } },
      },
      orders: {
        summary: "The store's shipped orders",
        value: { type: 'orders', filters: { status: 'shipped' } },
      },
      listings: { summary: "The store's listings", value: { type: 'listings' } },
    },
    errors: {
      '409': errorDoc(
        'An export of this store and mode is already queued or running',
        errorExample(
          'conflict',
          'EXPORT_ALREADY_RUNNING',
          'Export exp_41 of this store is still queued or running; one export runs at a time',
          { export_id: 'exp_41' },
        ),
      ),
      '429': errorDoc(
        "The day's exports are used up",
        errorExample(
          'rate_limited',
          'EXPORT_DAILY_LIMIT',
          'The store created 50 exports in this mode in the last 24 hours; 50 is the most a day allows',
        ),
      ),
    },
  },
  list: {
    responseExample: () => ({ exports: [COMPLETED], next_cursor: null, has_more: false }),
  },
  get: {
    responseExample: () => ({ export: COMPLETED }),
    errors: {
      '404': errorDoc(
        'No such export of this store in this mode',
        errorExample('not_found', 'EXPORT_NOT_FOUND', 'No export with id exp_42'),
      ),
    },
  },
};
