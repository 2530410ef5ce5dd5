import type { IncomingMessage, ServerResponse } from 'node:http';
import { wwwAuthenticate } from '../src/auth/credentials.ts';
import { AppError } from '../src/errors.ts';
import { createCaller } from '../src/router.ts';
import type { Context } from '../src/trpc/context.ts';
import { shapeError } from '../src/trpc/errors.ts';
import { sendError } from './respond.ts';

export const INVOICE_PATH = /^\/api\/v1\/orders\/([^/]+)\/invoice$/;

/**
 * `GET /api/v1/orders/{id}/invoice`: the PDF cannot travel through trpc-to-openapi (JSON only), so
 * this route calls the `orders.invoice` procedure (credential, scopes, limits and the id checked
 * there, as for every operation) and sends its bytes.
 */
export async function serveInvoice(
  req: IncomingMessage,
  res: ServerResponse,
  deps: { ctx: Context; publicUrl: string; rawId: string },
) {
  try {
    if (req.method !== 'GET') {
      throw new AppError('method_not_allowed', 'METHOD_NOT_ALLOWED', 'Use GET', {
        headers: { Allow: 'GET, HEAD' },
      });
    }
    const invoice = await createCaller(deps.ctx).orders.invoice({ id: deps.rawId });
    const pdf = Buffer.from(invoice.pdf_base64, 'base64');
    writeHeaders(res, deps.ctx.request?.headers ?? {});
    res.statusCode = 200;
    res.setHeader('Content-Type', 'application/pdf');
    res.setHeader('Content-Disposition', `inline; filename="${invoice.invoice_number}.pdf"`);
    res.setHeader('Content-Length', pdf.length);
    res.setHeader('Cache-Control', 'private, no-store');
    res.end(pdf);
  } catch (err) {
    const shaped = shapeError(err);
    // A server error goes to the app's handler, which logs it and answers 500.
    if (shaped.status >= 500) throw err;
    writeHeaders(res, { ...deps.ctx.request?.headers, ...shaped.headers });
    if (shaped.status === 401) res.setHeader('WWW-Authenticate', wwwAuthenticate(deps.publicUrl));
    sendError(res, shaped.status, shaped.body, { id: deps.ctx.requestId, publicUrl: deps.publicUrl });
  }
}

function writeHeaders(res: ServerResponse, headers: Record<string, string>) {
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
}
