import { type ErrorDoc, errorDoc, errorExample } from '../../src/trpc/operation-docs.ts';
import { answerResponse, type ErrorContext, errorAnswer } from './error-body.ts';
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
          schema: { type: 'integer', minimum: 1, maximum: 2147483647, example: 1 },
        },
      ],
      responses: invoiceResponses(),
    },
  };
}

/** Apps need two scopes here; the other statuses read as every order read's. */
const CONTEXT: ErrorContext = { write: false, appScope: 'read_orders', rateLimited: false };

const INVOICE_ERRORS: Partial<Record<string, ErrorDoc>> = {
  '400': errorDoc(
    'The order id is not valid',
    errorExample(
      'bad_request',
      'VALIDATION_FAILED',
      'Invalid request: id: expected integer, got string "abc"',
      {
        details: [{ path: 'id', message: 'expected integer, got string "abc"' }],
      },
    ),
  ),
  '403': errorDoc(
    'Refused: an app token without `read_orders` and `read_customers`',
    errorExample('forbidden', 'INSUFFICIENT_SCOPE', 'This operation needs the app scope read_customers', {
      required_scope: 'read_customers',
    }),
    errorExample('forbidden', 'INSUFFICIENT_SCOPE', 'This operation needs the app scope read_orders', {
      required_scope: 'read_orders',
    }),
  ),
  '404': errorDoc(
    'No such order in the store, or no invoice yet (it is issued when the order ships)',
    errorExample(
      'not_found',
      'INVOICE_NOT_ISSUED',
      'This order has no tax invoice yet: it is issued when the order ships',
    ),
    errorExample('not_found', 'ORDER_NOT_FOUND', 'No order with id 9001'),
  ),
};

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
    ...Object.fromEntries(
      ['400', '401', '403', '404', '429'].map((status) => [
        status,
        answerResponse(status, errorAnswer(status, INVOICE_ERRORS[status], undefined, CONTEXT)),
      ]),
    ),
  };
}
