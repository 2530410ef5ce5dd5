import { encodeBase32UpperCaseNoPadding } from '@oslojs/encoding';
import { AppError, field } from '../errors.ts';
import { forwardPath, invalidTransition } from '../orders/advance-order.ts';
import type { PartnerContext } from '../trpc/context.ts';
import { type LockedTestOrder, type Move, moveTestOrder } from './move-test-order.ts';
import type { AdvanceTestOrderInput } from './schemas.ts';

/** A tracking number no carrier issues: `TEST-TRK-` and 8 random characters. */
function testTrackingNumber(): string {
  return `TEST-TRK-${encodeBase32UpperCaseNoPadding(crypto.getRandomValues(new Uint8Array(5)))}`;
}

/**
 * The moves from the order's status to `to` (one move without it), each as the state machine allows
 * it; the move that ships takes the tracking number sent, the order's own, or a generated test one.
 * Anything not ahead of the order is the state machine's own refusal, before any move.
 */
function planAdvance(order: LockedTestOrder, input: AdvanceTestOrderInput): Move[] {
  const path = forwardPath(order.status, input.to);
  if (path.length === 0) throw invalidTransition(order, input.to);
  if (input.tracking_number !== undefined && !path.includes('shipped')) {
    throw new AppError(
      'bad_request',
      'VALIDATION_FAILED',
      `Invalid request: tracking_number: order ${order.order_number} does not ship in this move`,
      { details: field('tracking_number', 'only when the order ships in this move') },
    );
  }
  const tracking = input.tracking_number ?? order.tracking_number ?? testTrackingNumber();
  return path.map((status) => (status === 'shipped' ? { status, tracking } : { status }));
}

/**
 * Moves a test order forward, as fulfilment would move a real one: one status, or every status up to
 * `to`, each with its events (order.updated, order.fulfilled, order.shipped with the test invoice and
 * invoice.issued, order.completed).
 */
export function advanceTestOrder(ctx: PartnerContext, input: AdvanceTestOrderInput) {
  return moveTestOrder(ctx, input.id, (order) => planAdvance(order, input));
}
