import type { PartnerContext } from '../trpc/context.ts';
import { moveTestOrder } from './move-test-order.ts';
import type { CancelTestOrderInput } from './schemas.ts';

/**
 * Cancels a test order as the store's operator would (reason `merchant`, order.cancelled): pending,
 * processing and fulfilled orders only; the state machine refuses the others.
 */
export function cancelTestOrder(ctx: PartnerContext, { id }: CancelTestOrderInput) {
  return moveTestOrder(ctx, id, () => [{ status: 'cancelled' }]);
}
