import { z } from 'zod';

import { ORDER_STATUSES } from '../orders/schemas.ts';

export { ORDER_STATUSES };

export const storeProfileOutput = z.object({
  store: z.object({
    id: z.int(),
    name: z.string(),
    slug: z.string(),
    currency: z.string(),
    created_at: z.iso.datetime(),
    has_own_suppliers: z.boolean(),
    stats: z.object({
      orders_total: z.int(),
      orders_by_status: z.object(
        Object.fromEntries(ORDER_STATUSES.map((s) => [s, z.int()])) as Record<
          (typeof ORDER_STATUSES)[number],
          z.ZodInt
        >,
      ),
      revenue_cents: z.int(),
      last_order_at: z.iso.datetime().nullable(),
    }),
  }),
});
export type StoreProfile = z.output<typeof storeProfileOutput>;
