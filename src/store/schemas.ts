import { z } from 'zod';

import { ORDER_STATUSES } from '../order-status.ts';
import { idParam } from '../trpc/params.ts';

export { ORDER_STATUSES };

/** `me` takes nothing: the credential names the store. */
export const storeProfileInput = z.object({});

export const storeProfileOutput = z.object({
  store: z.object({
    id: z.int().meta({ description: 'The store id.', example: 12 }),
    name: z.string().meta({ example: 'Harbour Home' }),
    slug: z.string().meta({ example: 'harbour-home' }),
    currency: z.string().meta({ example: 'AUD' }),
    created_at: z.iso.datetime().meta({ example: '2026-08-01T00:00:00.000Z' }),
    has_own_suppliers: z.boolean().meta({
      description: 'The account has own suppliers (the `ownership` filter applies).',
      example: false,
    }),
    stats: z
      .object({
        orders_total: z.int(),
        orders_by_status: z.object(
          Object.fromEntries(ORDER_STATUSES.map((s) => [s, z.int()])) as Record<
            (typeof ORDER_STATUSES)[number],
            z.ZodInt
          >,
        ),
        revenue_cents: z.int().meta({ description: 'Total of every order not cancelled, in cents.' }),
        last_order_at: z.iso.datetime().nullable(),
      })
      .meta({
        description: "The store's orders.",
        example: {
          orders_total: 42,
          orders_by_status: {
            pending: 2,
            processing: 3,
            fulfilled: 1,
            shipped: 4,
            delivered: 30,
            cancelled: 2,
          },
          revenue_cents: 2841500,
          last_order_at: '2026-11-02T09:30:00.000Z',
        },
      }),
  }),
});
export type StoreProfile = z.output<typeof storeProfileOutput>;

export const createStoreInput = z.object({
  name: z.string().trim().min(1).max(200),
  slug: z
    .string()
    .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/)
    .max(60)
    .optional(),
  ownerEmail: z.email().optional(),
  catalogueScope: z.enum(['all', 'store']).optional(),
});
export type CreateStoreInput = z.output<typeof createStoreInput>;

export const createApiKeyInput = z.object({
  storeId: idParam,
  scope: z.enum(['read', 'read_write']),
  mode: z.enum(['live', 'test']).default('live'),
  name: z.string().max(100).optional(),
});
export type CreateApiKeyInput = z.output<typeof createApiKeyInput>;

export const revokeApiKeyInput = z.object({ id: idParam });
export type RevokeApiKeyInput = z.output<typeof revokeApiKeyInput>;

export const setPublishedInput = z.object({ storeId: idParam, published: z.boolean() });
export type SetPublishedInput = z.output<typeof setPublishedInput>;

/** Every store, for operators; takes nothing. */
export const listStoresInput = z.object({});
export type ListStoresInput = z.output<typeof listStoresInput>;

export const listApiKeysInput = z.object({ storeId: idParam });
export type ListApiKeysInput = z.output<typeof listApiKeysInput>;
