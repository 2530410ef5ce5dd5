import type { PartnerContext } from '../trpc/context.ts';
import type { OrderIdInput } from './schemas.ts';
import { invoicePdf } from './tax-invoice.ts';

/** The order's tax invoice, base64 so that it travels in JSON (the REST route sends the bytes). */
export async function getInvoice(ctx: PartnerContext, { id }: OrderIdInput) {
  const { invoiceNumber, pdf } = await invoicePdf(ctx.em, ctx.settings.merchant, id, ctx.actor);
  return { invoice_number: invoiceNumber, pdf_base64: Buffer.from(pdf).toString('base64') };
}
