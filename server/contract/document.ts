import { generateOpenApiDocument } from 'trpc-to-openapi';
import { appRouter } from '../../src/router.ts';
import { addCodeSamples } from './code-samples.ts';
import { ERROR_SCHEMA } from './error-body.ts';
import { HEADERS } from './headers.ts';
import { addIdempotencyKeys } from './idempotency.ts';
import { API_DESCRIPTION, SECURITY_SCHEMES, TAG_DESCRIPTIONS, TAGS } from './info.ts';
import { addInvoiceOperation } from './invoice.ts';
import { addOAuthOperations } from './oauth.ts';
import { type OperationFacts, operationFacts } from './operation-facts.ts';
import { describeOperation } from './operations.ts';
import { addServiceOperations } from './service.ts';
import type { oas31 } from './shared.ts';
import { addWebhookEvents } from './webhooks.ts';

export const CONTRACT_VERSION = '2.0.2';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/**
 * The contract, generated from the routers so it cannot drift from the code. trpc-to-openapi
 * describes errors in tRPC's shape; every error response is rewritten to the contract's error body.
 * The raw routes (the invoice PDF, OAuth and discovery) and the webhook events are described here.
 */
export function buildOpenApiDocument(baseUrl = 'http://localhost:3000'): oas31.OpenAPIObject {
  const doc: oas31.OpenAPIObject = generateOpenApiDocument(appRouter, {
    title: 'Stockless Partner API',
    description: API_DESCRIPTION,
    version: CONTRACT_VERSION,
    baseUrl: '{base_url}',
    tags: TAGS,
    securitySchemes: SECURITY_SCHEMES,
  });
  doc.info.license = { name: 'Proprietary' };
  doc.tags = TAGS.map((name) => ({ name, description: TAG_DESCRIPTIONS[name] }));
  doc.servers = [
    {
      url: '{base_url}',
      description: 'The Stockless deployment you were given access to.',
      variables: { base_url: { default: baseUrl, description: 'Scheme, host and port, no trailing slash.' } },
    },
  ];
  doc.components ??= {};
  doc.components.schemas ??= {};
  const schemas = doc.components.schemas;
  for (const name of Object.keys(schemas)) if (name.startsWith('error.')) delete schemas[name];
  schemas.Error = ERROR_SCHEMA;
  doc.components.headers = HEADERS;
  describeOperations(doc);
  addIdempotencyKeys(doc);
  addInvoiceOperation(doc);
  addOAuthOperations(doc);
  addServiceOperations(doc);
  addWebhookEvents(doc);
  // Last: the samples show each operation as the steps above left it (parameters, bodies, answers).
  addCodeSamples(doc, baseUrl, operationFacts());
  return doc;
}

/** Every operation generated from the routers, in the contract's terms. */
function describeOperations(doc: oas31.OpenAPIObject) {
  const facts = operationFacts();
  for (const item of Object.values(doc.paths ?? {})) {
    for (const method of Object.keys(item)) {
      if (!isMethod(method)) continue;
      const op = item[method];
      if (op) describeOperation(doc, method, op, facts.get(op.operationId ?? '') ?? NO_FACTS);
    }
  }
}

/** An operation no procedure names (trpc-to-openapi made up its id): apps refused, nothing added. */
const NO_FACTS: OperationFacts = {
  successStatus: undefined,
  appScope: null,
  rateLimited: false,
  errorTexts: {},
  docs: undefined,
};

const isMethod = (key: string): key is (typeof METHODS)[number] =>
  (METHODS as readonly string[]).includes(key);
