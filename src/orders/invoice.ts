import type { EntityManager } from '@mikro-orm/postgresql';
import { isoTime, rows, sql } from '../db/sql.ts';
import { notFound } from '../errors.ts';
import type { MailAttachments } from '../mail/send.ts';
import type { Merchant } from '../settings.ts';
import { type InvoiceData, renderInvoicePdf } from './invoice-pdf.ts';

/**
 * The order's tax invoice as a PDF, rendered from the order as it was shipped. 404 while the
 * order has no invoice (it is issued when the order ships). `storeId` limits to one store's orders.
 */
/** An invoice mail's attachment: the order's tax invoice as a PDF (src/mail/send.ts). */
export function invoiceAttachments(merchant: Merchant): MailAttachments {
  return async (tx, mail) => {
    if (mail.kind !== 'invoice' || mail.order_id === null) return [];
    const invoice = await invoicePdf(tx, merchant, mail.order_id);
    return [
      { filename: `${invoice.invoiceNumber}.pdf`, content: invoice.pdf, contentType: 'application/pdf' },
    ];
  };
}

export async function invoicePdf(em: EntityManager, merchant: Merchant, orderId: number, storeId?: number) {
  const [o] = await rows<{
    invoice_number: string | null;
    invoice_issued_at: string | null;
    order_number: string;
    order_type: string;
    store_name: string;
    store_email: string | null;
    customer_name: string;
    customer_email: string;
    ship_address: string;
    ship_address2: string;
    ship_city: string;
    ship_state: string;
    ship_zip: string;
    ship_country: string;
    shipping_cents: number;
    total_cents: number;
    currency: string;
    lines: InvoiceData['lines'];
  }>(
    em,
    sql`SELECT o.invoice_number, ${isoTime(sql`o.invoice_issued_at`)} AS invoice_issued_at, o.order_number,
        o.order_type, s.name AS store_name, s.owner_email AS store_email, o.customer_name, o.customer_email, o.ship_address, o.ship_address2, o.ship_city,
        o.ship_state, o.ship_zip, o.ship_country, o.shipping_cents, o.total_cents, o.currency,
        (SELECT json_agg(json_build_object('sku', l.sku, 'name', l.name, 'quantity', l.quantity,
          'price_cents', l.price_cents) ORDER BY l.id) FROM order_lines l WHERE l.order_id = o.id) AS lines
      FROM orders o JOIN stores s ON s.id = o.store_id
      WHERE o.id = ${orderId} ${storeId === undefined ? sql`` : sql`AND o.store_id = ${storeId}`}`,
  );
  if (!o) throw notFound(`No order with id ${orderId}`, 'ORDER_NOT_FOUND');
  if (!o.invoice_number || !o.invoice_issued_at) {
    throw notFound(
      'This order has no tax invoice yet: it is issued when the order ships',
      'INVOICE_NOT_ISSUED',
    );
  }
  const pdf = await renderInvoicePdf(merchant, {
    invoiceNumber: o.invoice_number,
    issuedAt: o.invoice_issued_at,
    orderNumber: o.order_number,
    storeName: o.store_name,
    // A wholesale order is the store's purchase: the invoice is the store's, at wholesale prices.
    billTo:
      o.order_type === 'wholesale_api'
        ? { name: o.store_name, email: o.store_email ?? '' }
        : { name: o.customer_name, email: o.customer_email },
    shipTo: { name: o.customer_name },
    shipping: {
      address: o.ship_address,
      address2: o.ship_address2,
      city: o.ship_city,
      state: o.ship_state,
      zip: o.ship_zip,
      country: o.ship_country,
    },
    lines: o.lines,
    shippingCents: o.shipping_cents,
    totalCents: o.total_cents,
    currency: o.currency.trim(),
  });
  return { invoiceNumber: o.invoice_number, pdf };
}
