import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EntityManager } from '@mikro-orm/postgresql';
import { authorize } from '../src/auth/authorize.ts';
import { resolveCredential, wwwAuthenticate } from '../src/auth/credentials.ts';
import { AppError } from '../src/errors.ts';
import { invoicePdf } from '../src/orders/invoice.ts';
import { ORDER_READ_SCOPE } from '../src/orders/router.ts';
import { appLimitKey, enforceLimit } from '../src/ratelimit/limiter.ts';
import type { Merchant } from '../src/settings.ts';
import { shapeError } from '../src/trpc/errors.ts';
import { sendError } from './respond.ts';

export const INVOICE_PATH = /^\/api\/v1\/orders\/([^/]+)\/invoice$/;

/**
 * `GET /api/v1/orders/{id}/invoice`: the PDF cannot travel through trpc-to-openapi (JSON only), so
 * it is a raw route with the same credential rules and error body as every other operation.
 */
export async function serveInvoice(
  req: IncomingMessage,
  res: ServerResponse,
  deps: {
    em: EntityManager;
    merchant: Merchant;
    requestId: string;
    publicUrl: string;
    rawId: string;
    appRateLimit: number;
  },
) {
  try {
    if (req.method !== 'GET') {
      throw new AppError('bad_request', 'METHOD_NOT_ALLOWED', 'Use GET', {
        status: 405,
        headers: { Allow: 'GET, HEAD' },
      });
    }
    const actor = await resolveCredential(deps.em, req.headers.authorization, deps.publicUrl);
    authorize(actor, { write: false, appScope: ORDER_READ_SCOPE });
    if (actor.kind === 'app') {
      for (const [k, v] of Object.entries(
        await enforceLimit(deps.em, appLimitKey(actor), deps.appRateLimit),
      )) {
        res.setHeader(k, v);
      }
    }
    // The invoice names the buyer and their address: apps also need read_customers.
    if (actor.kind === 'app') authorize(actor, { write: false, appScope: 'read_customers' });
    if (!/^[1-9]\d{0,9}$/.test(deps.rawId) || Number(deps.rawId) > 2_147_483_647) {
      throw new AppError(
        'bad_request',
        'VALIDATION_FAILED',
        'Invalid request: id: must be a positive integer',
        {
          extra: { details: [{ path: 'id', message: 'must be a positive integer' }] },
        },
      );
    }
    const { invoiceNumber, pdf } = await invoicePdf(
      deps.em,
      deps.merchant,
      Number(deps.rawId),
      actor.storeId,
    );
    res.statusCode = 200;
    res.setHeader('Content-Type', 'application/pdf');
    res.setHeader('Content-Disposition', `inline; filename="${invoiceNumber}.pdf"`);
    res.setHeader('Content-Length', pdf.length);
    res.setHeader('Cache-Control', 'private, no-store');
    res.end(pdf);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const shaped = shapeError(err);
    for (const [k, v] of Object.entries(shaped.headers)) res.setHeader(k, v);
    if (shaped.status === 401) {
      res.setHeader('WWW-Authenticate', wwwAuthenticate(deps.publicUrl));
    }
    sendError(res, shaped.status, shaped.body, deps.requestId);
  }
}
