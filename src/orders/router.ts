import { authorize } from '../auth/authorize.ts';
import { router } from '../trpc/init.ts';
import { partnerProcedure } from '../trpc/procedures.ts';
import { getInvoice } from './get-invoice.ts';
import { getOrder } from './get-order.ts';
import { listOrders } from './list-orders.ts';
import { placeWholesaleOrder } from './place-wholesale-order.ts';
import {
  createdOrderOutput,
  invoiceOutput,
  listOrdersInput,
  listOrdersOutput,
  orderIdInput,
  orderOutput,
  wholesaleOrderInput,
} from './schemas.ts';

const TAGS = ['Orders'];
const AUTH = { 401: 'Missing or invalid credential', 403: 'Scope refused' };

const ORDER_READ_SCOPE = 'read_orders' as const;

/** The invoice names the buyer and their address: apps also need read_customers (before the id is read). */
const buyerDetails = partnerProcedure.use(({ ctx, next }) => {
  if (ctx.actor.kind === 'app') authorize(ctx.actor, { write: false, appScope: 'read_customers' });
  return next();
});

export const ordersRouter = router({
  list: partnerProcedure
    .meta({
      appScope: ORDER_READ_SCOPE,
      readsFrom: 'replica',
      openapi: {
        method: 'GET',
        path: '/api/v1/orders',
        operationId: 'listOrders',
        tags: TAGS,
        summary: "List the store's orders",
        description:
          'Newest first by default. Buyer details are left out for app tokens without `read_customers`.',
        errorResponses: { 400: 'Invalid parameters', ...AUTH },
      },
    })
    .input(listOrdersInput)
    .output(listOrdersOutput)
    .query(({ ctx, input }) => listOrders(ctx, input)),

  create: partnerProcedure
    .meta({
      appScope: null,
      successStatus: 201,
      openapi: {
        method: 'POST',
        path: '/api/v1/orders',
        operationId: 'createWholesaleOrder',
        tags: TAGS,
        summary: 'Place a wholesale order',
        description:
          'The store buys catalogue products from Stockless at wholesale (`order_type: wholesale_api`). Each product ' +
          'must be active, have images and enough stock; `price_cents`, if sent, must equal the current wholesale ' +
          'price (409 `PRICE_CHANGED` when it changed from the one sent, 400 `PRICE_MISMATCH` when it never was ' +
          'that). Name `variant_id` for products with several variants. All lines are ' +
          'checked and reserved together, or none. App tokens are refused.',
        errorResponses: {
          400: 'Invalid order',
          ...AUTH,
          404: 'Unknown product or variant',
          409: 'Price changed',
        },
      },
    })
    .input(wholesaleOrderInput)
    .output(createdOrderOutput)
    .mutation(({ ctx, input }) => placeWholesaleOrder(ctx, input)),

  get: partnerProcedure
    .meta({
      appScope: ORDER_READ_SCOPE,
      readsFrom: 'replica',
      openapi: {
        method: 'GET',
        path: '/api/v1/orders/{id}',
        operationId: 'getOrder',
        tags: TAGS,
        summary: 'One order',
        description:
          'With items, shipping, tracking and invoice fields. Buyer details are left out for app tokens without ' +
          '`read_customers`.',
        errorResponses: { 400: 'Invalid id', ...AUTH, 404: 'No such order' },
      },
    })
    .input(orderIdInput)
    .output(orderOutput)
    .query(({ ctx, input }) => getOrder(ctx, input)),

  /**
   * The tax invoice PDF. Not a REST operation of its own: trpc-to-openapi answers JSON only, so
   * GET /api/v1/orders/{id}/invoice (server/invoice-route.ts) calls this and sends the bytes.
   */
  invoice: buyerDetails
    .meta({ appScope: ORDER_READ_SCOPE })
    .input(orderIdInput)
    .output(invoiceOutput)
    .query(({ ctx, input }) => getInvoice(ctx, input)),
});
