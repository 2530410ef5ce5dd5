import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import type { AppScope, AppScopeRule } from '../src/auth/actor.ts';
import { appRouter } from '../src/router.ts';
import { proceduresMeta } from '../src/trpc/meta.ts';

export const CONTRACT_VERSION = '1.0.0';
export const TAGS = ['Catalogue', 'Store', 'Listings', 'Orders', 'Webhooks', 'OAuth'];

const errorSchema = {
  type: 'object',
  required: ['error', 'message', 'request_id'],
  properties: {
    error: {
      type: 'string',
      enum: [
        'bad_request',
        'unauthorized',
        'forbidden',
        'not_found',
        'conflict',
        'rate_limited',
        'server_error',
      ],
      description: 'Error category.',
    },
    message: { type: 'string', description: 'Human-readable explanation.' },
    code: { type: 'string', description: 'Machine-readable code, e.g. INSUFFICIENT_SCOPE.' },
    request_id: { type: 'string', description: 'Same as the X-Request-Id response header.' },
    required_scope: { type: 'string', description: 'On 403 INSUFFICIENT_SCOPE: the scope that was missing.' },
    details: {
      type: 'array',
      description: 'On validation errors: one entry per invalid field.',
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: { path: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
} as const;

/** operationId → success status, for procedures whose success is not 200. */
function createdOperations(): Map<string, number> {
  const out = new Map<string, number>();
  for (const meta of proceduresMeta(appRouter).values()) {
    if (meta.successStatus && meta.openapi?.operationId)
      out.set(meta.openapi.operationId, meta.successStatus);
  }
  return out;
}

/** operationId → the app scope its meta names (`null`: apps refused). */
function appScopes(): Map<string, AppScopeRule> {
  const out = new Map<string, AppScopeRule>();
  for (const meta of proceduresMeta(appRouter).values()) {
    if (meta.openapi?.operationId) out.set(meta.openapi.operationId, meta.appScope ?? null);
  }
  return out;
}

const APP_SCOPE_DESCRIPTIONS: Record<AppScope, string> = {
  read_products: 'Read the catalogue and listings',
  write_products: 'Includes read_products; add, remove and price listings',
  read_inventory: 'Read the inventory feed',
  write_inventory: 'Includes read_inventory',
  read_orders: 'Read orders',
  write_orders: 'Includes read_orders; does not include creating orders',
  read_customers: 'Buyer names, emails and addresses in order answers; never implied by another scope',
  write_external_orders: 'Post and cancel marketplace orders',
};

type Operation = {
  responses?: Record<string, { description?: string; content?: unknown; headers?: unknown }>;
};

/**
 * The contract, generated from the routers so it cannot drift from the code. trpc-to-openapi
 * describes errors in tRPC's shape; every error response is rewritten to the contract's error body.
 */
export function buildOpenApiDocument(baseUrl = 'http://localhost:3000'): OpenAPIObject {
  const doc = generateOpenApiDocument(appRouter, {
    title: 'Stockless Partner API',
    description:
      'The partner API of Stockless: catalogue, store listings, orders and invoices, inventory feed, ' +
      'marketplace orders, signed webhooks and OAuth 2.1 for partner apps. Money is integer cents (AUD ' +
      'unless stated); timestamps are ISO 8601.',
    version: CONTRACT_VERSION,
    baseUrl: '{base_url}',
    tags: TAGS,
    securitySchemes: {
      ApiKey: {
        type: 'http',
        scheme: 'bearer',
        description: 'A vendor API key (`sl_live_…` or `sl_test_…`), server-side use only.',
      },
      PartnerApp: {
        type: 'oauth2',
        description:
          'An access token (`sl_at_…`) an installed partner app obtained with the authorization code flow and ' +
          'PKCE S256, for the resource `{base_url}/api/v1`. Public clients register at `/oauth/register`; ' +
          'discovery at `/.well-known/oauth-authorization-server`. Scopes are read from the store\'s grant on ' +
          'every call; `write_*` includes its `read_*`, `read_customers` is never implied.',
        flows: {
          authorizationCode: {
            authorizationUrl: '/oauth/authorize',
            tokenUrl: '/oauth/token',
            refreshUrl: '/oauth/token',
            scopes: APP_SCOPE_DESCRIPTIONS,
          },
        },
      },
    },
  });
  doc.servers = [{ url: '{base_url}', variables: { base_url: { default: baseUrl } } }];
  doc.components ??= {};
  doc.components.schemas ??= {};
  const schemas = doc.components.schemas;
  for (const name of Object.keys(schemas)) if (name.startsWith('error.')) delete schemas[name];
  schemas.Error = errorSchema as never;
  const created = createdOperations();
  const scopes = appScopes();
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item as Record<string, Operation>)) {
      const operationId = (op as { operationId?: string }).operationId ?? '';
      const appScope = scopes.get(operationId);
      // API keys everywhere; app tokens where the operation has an app scope (`*`: any scope).
      (op as { security?: unknown }).security =
        appScope === null || appScope === undefined
          ? [{ ApiKey: [] }]
          : [{ ApiKey: [] }, { PartnerApp: appScope === '*' ? [] : [appScope] }];
      const status = created.get(operationId);
      if (status && op.responses?.['200']) {
        op.responses[String(status)] = op.responses['200'];
        delete op.responses['200'];
      }
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        if (Number(status) >= 400) {
          response.content = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
        }
      }
    }
  }
  addInvoiceOperation(doc);
  return doc;
}

/** The invoice is a PDF served by a raw route (trpc-to-openapi only speaks JSON): described by hand. */
function addInvoiceOperation(doc: OpenAPIObject) {
  const error = (description: string) => ({
    description,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  });
  doc.paths ??= {};
  doc.paths['/api/v1/orders/{id}/invoice'] = {
    get: {
      operationId: 'getOrderInvoice',
      tags: ['Orders'],
      summary: "The buyer's tax invoice (PDF)",
      description:
        'The tax invoice Stockless issued as merchant of record when the order shipped, as a PDF. Before the ' +
        'order ships there is none: 404 `INVOICE_NOT_ISSUED`. `invoice_number` and `invoice_issued_at` on the ' +
        'order tell whether it exists. App tokens need `read_orders` and `read_customers` (the invoice names the buyer).',
      security: [{ ApiKey: [] }, { PartnerApp: ['read_orders', 'read_customers'] }],
      parameters: [
        {
          in: 'path',
          name: 'id',
          required: true,
          schema: { type: 'integer', minimum: 1, maximum: 2147483647 },
        },
      ],
      responses: {
        '200': {
          description: 'The invoice',
          headers: {
            'Content-Disposition': {
              description: 'inline; filename="INV-YYYYMM-NNNNNN.pdf"',
              schema: { type: 'string' },
            },
          },
          content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
        },
        '400': error('Invalid id'),
        '401': error('Missing or invalid credential'),
        '403': error('Scope refused'),
        '404': error('No such order, or no invoice yet'),
      },
    },
  };
}
