import { createTRPCClient, httpBatchLink, type TRPCClient } from '@trpc/client';
import type { AppRouter } from '../../src/router.ts';

export type { AppRouter };

/** The dashboard client: `client.<area>.<procedure>.query(…)` / `.mutate(…)`. */
export type DashboardClient = TRPCClient<AppRouter>;

export interface DashboardClientOptions {
  fetch?: typeof globalThis.fetch;
}

/**
 * A tRPC client for internal dashboards, typed by the app router: every procedure, internal ones
 * included (`client.internal.orders.advance.mutate(…)`), with its input and output types.
 *
 * `url` is the server's base URL (or its `/trpc` endpoint); `operatorToken` is the server's
 * `OPERATOR_TOKEN`. Never ship this to partners: it is for Stockless's own tools.
 */
export function createDashboardClient(
  url: string,
  operatorToken: string,
  options: DashboardClientOptions = {},
) {
  const base = url.replace(/\/+$/, '');
  return createTRPCClient<AppRouter>({
    links: [
      httpBatchLink({
        url: base.endsWith('/trpc') ? base : `${base}/trpc`,
        headers: () => ({ authorization: `Bearer ${operatorToken}` }),
        fetch: options.fetch,
      }),
    ],
  });
}
