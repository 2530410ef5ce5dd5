import { catalogueInternalRouter } from './catalogue/internal-router.ts';
import { catalogueRouter } from './catalogue/router.ts';
import { eventsRouter } from './events-api/router.ts';
import { exportsRouter } from './exports/router.ts';
import { externalOrdersInternalRouter } from './external-orders/internal-router.ts';
import { externalOrdersRouter } from './external-orders/router.ts';
import { inventoryInternalRouter } from './inventory/internal-router.ts';
import { inventoryRouter } from './inventory/router.ts';
import { listingsInternalRouter } from './listings/internal-router.ts';
import { listingsRouter } from './listings/router.ts';
import { mailInternalRouter } from './mail/internal-router.ts';
import { oauthInternalRouter } from './oauth/internal-router.ts';
import { ordersInternalRouter } from './orders/internal-router.ts';
import { ordersRouter } from './orders/router.ts';
import { platformInternalRouter } from './platform/internal-router.ts';
import { requestLogRouter } from './request-log/router.ts';
import { sandboxInternalRouter } from './sandbox/internal-router.ts';
import { storeInternalRouter } from './store/internal-router.ts';
import { storeRouter } from './store/router.ts';
import { testHelpersRouter } from './test-helpers/router.ts';
import { createCallerFactory, router } from './trpc/init.ts';
import { webhooksInternalRouter } from './webhooks/internal-router.ts';
import { webhooksRouter } from './webhooks/router.ts';

/**
 * Operator and dashboard procedures, each in its own domain's internal router. They share one prefix
 * (`internal.<domain>.<procedure>`) so a proxy can keep every one of them off the public host by path;
 * never exposed as REST, never in the partner contract.
 */
const internalRouter = router({
  store: storeInternalRouter,
  platform: platformInternalRouter,
  catalogue: catalogueInternalRouter,
  listings: listingsInternalRouter,
  inventory: inventoryInternalRouter,
  orders: ordersInternalRouter,
  externalOrders: externalOrdersInternalRouter,
  oauth: oauthInternalRouter,
  mail: mailInternalRouter,
  webhooks: webhooksInternalRouter,
  sandbox: sandboxInternalRouter,
});

export const appRouter = router({
  catalogue: catalogueRouter,
  store: storeRouter,
  listings: listingsRouter,
  orders: ordersRouter,
  inventory: inventoryRouter,
  externalOrders: externalOrdersRouter,
  webhooks: webhooksRouter,
  events: eventsRouter,
  requests: requestLogRouter,
  testHelpers: testHelpersRouter,
  exports: exportsRouter,
  internal: internalRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
