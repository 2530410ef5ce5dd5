import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
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
    },
  });
  doc.servers = [{ url: '{base_url}', variables: { base_url: { default: baseUrl } } }];
  doc.components ??= {};
  doc.components.schemas ??= {};
  const schemas = doc.components.schemas;
  for (const name of Object.keys(schemas)) if (name.startsWith('error.')) delete schemas[name];
  schemas.Error = errorSchema as never;
  const created = createdOperations();
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item as Record<string, Operation>)) {
      const status = created.get((op as { operationId?: string }).operationId ?? '');
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
        'order tell whether it exists. App scope: `read_orders`.',
      security: [{ ApiKey: [] }],
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
