import { errorExample } from '../../src/trpc/operation-docs.ts';
import { errorResponse, genericError } from './error-body.ts';
import { RATE_LIMIT_HEADERS } from './headers.ts';
import { type oas31, ref } from './shared.ts';

/** The invoice is a PDF served by a raw route (trpc-to-openapi only speaks JSON): described by hand. */
export function addInvoiceOperation(doc: oas31.OpenAPIObject) {
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
          description: 'The order id.',
          schema: { type: 'integer', minimum: 1, maximum: 2147483647, example: 9001 },
        },
      ],
      responses: invoiceResponses(),
    },
  };
}

function invoiceResponses(): oas31.ResponsesObject {
  return {
    '200': {
      description: 'The invoice',
      headers: {
        'Content-Disposition': {
          description: 'inline; filename="INV-YYYYMM-NNNNNN.pdf"',
          schema: { type: 'string', example: 'inline; filename="INV-202611-000123.pdf"' },
        },
        'X-Request-Id': ref('headers', 'XRequestId'),
        ...RATE_LIMIT_HEADERS,
      },
      content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
    },
    '400': errorResponse('Invalid id', '400', genericError('400', false, 'read_orders')),
    '401': errorResponse('Missing or invalid credential', '401', genericError('401', false, null)),
    '403': errorResponse(
      'Scope refused',
      '403',
      errorExample('forbidden', 'INSUFFICIENT_SCOPE', 'This operation needs the app scope read_customers', {
        required_scope: 'read_customers',
      }),
    ),
    '404': errorResponse(
      'No such order, or no invoice yet',
      '404',
      errorExample(
        'not_found',
        'INVOICE_NOT_ISSUED',
        'This order has no tax invoice yet: it is issued when the order ships',
      ),
    ),
    '429': errorResponse(
      'Rate limited (app tokens: 120 requests a minute per store per app)',
      '429',
      genericError('429', false, null),
    ),
  };
}
