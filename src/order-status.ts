/**
 * An order's statuses, in their lifecycle's order. Apart from the orders domain because a store's
 * profile counts its orders by status, and the store is below orders in the layers.
 */
export const ORDER_STATUSES = [
  'pending',
  'processing',
  'fulfilled',
  'shipped',
  'delivered',
  'cancelled',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];
