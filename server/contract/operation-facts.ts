import type { AppScopeRule } from '../../src/auth/actor.ts';
import { catalogueDocs } from '../../src/catalogue/router.docs.ts';
import { eventLogDocs } from '../../src/events-api/router.docs.ts';
import { exportsDocs } from '../../src/exports/router.docs.ts';
import { externalOrdersDocs } from '../../src/external-orders/router.docs.ts';
import { inventoryDocs } from '../../src/inventory/router.docs.ts';
import { listingsDocs } from '../../src/listings/router.docs.ts';
import { ordersDocs } from '../../src/orders/router.docs.ts';
import { requestLogDocs } from '../../src/request-log/router.docs.ts';
import { type AppRouter, appRouter } from '../../src/router.ts';
import { storeDocs } from '../../src/store/router.docs.ts';
import { testHelpersDocs } from '../../src/test-helpers/router.docs.ts';
import { proceduresMeta } from '../../src/trpc/meta.ts';
import type { OperationDocs } from '../../src/trpc/operation-docs.ts';
import { webhooksDocs } from '../../src/webhooks/router.docs.ts';

/** What the routers say of one REST operation: its meta, and the docs beside its router. */
export interface OperationFacts {
  /** The REST status of a success, when it is not 200. */
  successStatus: number | undefined;
  /** The app scope an app token needs; `null`: apps refused. */
  appScope: AppScopeRule;
  /** Counts against a limit of its own (besides the per-app limit of app tokens). */
  rateLimited: boolean;
  /**
   * The texts the meta's `errorResponses` give its error statuses. trpc-to-openapi keeps one
   * response object per status for the whole document (the first text it met, so every 409 read
   * "Already in the store"): the contract takes each operation's texts from here and its docs.
   */
  errorTexts: Partial<Record<string, string>>;
  docs: OperationDocs | undefined;
}

/** Each domain's `router.docs.ts`, by the name its router is mounted under in the app router. */
const DOMAIN_DOCS: {
  [Domain in keyof AppRouter['_def']['record']]?: Record<string, OperationDocs | undefined>;
} = {
  catalogue: catalogueDocs,
  store: storeDocs,
  listings: listingsDocs,
  orders: ordersDocs,
  inventory: inventoryDocs,
  externalOrders: externalOrdersDocs,
  webhooks: webhooksDocs,
  events: eventLogDocs,
  requests: requestLogDocs,
  testHelpers: testHelpersDocs,
  exports: exportsDocs,
};

const DOCS_BY_DOMAIN = new Map(Object.entries(DOMAIN_DOCS));

/** The facts of every REST operation, by operationId. */
export function operationFacts(): Map<string, OperationFacts> {
  const out = new Map<string, OperationFacts>();
  for (const [path, meta] of proceduresMeta(appRouter)) {
    const operationId = meta.openapi?.operationId;
    if (!operationId) continue;
    const [domain = '', ...procedure] = path.split('.');
    out.set(operationId, {
      successStatus: meta.successStatus || undefined,
      appScope: meta.appScope ?? null,
      rateLimited: Boolean(meta.rateLimit),
      errorTexts: errorTexts(meta.openapi?.errorResponses),
      docs: DOCS_BY_DOMAIN.get(domain)?.[procedure.join('.')],
    });
  }
  assertDocsUsed(out);
  return out;
}

/** `errorResponses` as texts by status (a list of statuses names none). */
function errorTexts(
  responses: number[] | Record<number, string> | undefined,
): Partial<Record<string, string>> {
  if (!responses || Array.isArray(responses)) return {};
  return Object.fromEntries(Object.entries(responses));
}

/** Docs of a procedure that is not a REST operation would silently say nothing: refuse them. */
function assertDocsUsed(facts: Map<string, OperationFacts>) {
  const used = new Set([...facts.values()].map((f) => f.docs));
  for (const [domain, docs] of DOCS_BY_DOMAIN) {
    for (const [procedure, entry] of Object.entries(docs ?? {})) {
      if (entry && !used.has(entry))
        throw new Error(`${domain}.${procedure} has docs but is not a REST operation`);
    }
  }
}
