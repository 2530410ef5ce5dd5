import { catalogueRouter } from './catalogue/router.ts';
import { externalOrdersRouter } from './external-orders/router.ts';
import { internalRouter } from './internal/router.ts';
import { inventoryRouter } from './inventory/router.ts';
import { listingsRouter } from './listings/router.ts';
import { ordersRouter } from './orders/router.ts';
import { storeRouter } from './store/router.ts';
import { createCallerFactory, router } from './trpc/init.ts';
import { webhooksRouter } from './webhooks/router.ts';

export const appRouter = router({
  catalogue: catalogueRouter,
  store: storeRouter,
  listings: listingsRouter,
  orders: ordersRouter,
  inventory: inventoryRouter,
  externalOrders: externalOrdersRouter,
  webhooks: webhooksRouter,
  internal: internalRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
