import { z } from 'zod';
import { orderOutput } from '../orders/schemas.ts';
import { described, intParam, NUL_MESSAGE, noNul, PG_INT_MAX } from '../trpc/params.ts';

/** Where `to` may take a test order: forward along the lifecycle (cancelling has its own operation). */
export const ADVANCE_TARGETS = ['processing', 'fulfilled', 'shipped', 'delivered'] as const;

const testOrderId = intParam(1, PG_INT_MAX, {
  description: 'The id of a test order (one placed with an `sl_test_` key).',
  example: 9001,
});

export const advanceTestOrderInput = z.strictObject({
  id: testOrderId,
  to: z
    .enum(ADVANCE_TARGETS)
    .meta({
      description:
        'The status to reach, through every status in between, each move with its own events. Absent: one move ' +
        'forward.',
      example: 'delivered',
    })
    .optional(),
  tracking_number: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .refine(noNul, NUL_MESSAGE)
    .meta({
      ...described(
        'The tracking number the order ships with, only when this move ships it. Absent: the order keeps one it ' +
          'has, or gets a generated `TEST-TRK-…` one.',
      ),
      example: 'TEST-TRK-0001',
    })
    .optional(),
});
export type AdvanceTestOrderInput = z.output<typeof advanceTestOrderInput>;

export const cancelTestOrderInput = z.strictObject({ id: testOrderId });
export type CancelTestOrderInput = z.output<typeof cancelTestOrderInput>;

/** The order as GET /api/v1/orders/{id} answers it, after the move. */
export const testOrderOutput = orderOutput;
