import type { EntityManager } from '@mikro-orm/postgresql';
import type { ExpressionBuilder, Selectable } from 'kysely';
import { jsonBuildObject } from 'kysely/helpers/postgres';
import { type DB, db } from '../db/kysely.ts';
import { type Owner, ownedBy } from '../db/owned-by.ts';
import { first, isoTime } from '../db/sql.ts';
import { notFound } from '../errors.ts';
import type { MailAttachments } from '../mail/smtp-sender.ts';
import type { Merchant } from '../settings.ts';
import { renderInvoicePdf } from './invoice-pdf.ts';

/** An invoice mail's attachment: the order's tax invoice as a PDF (src/mail/smtp-sender.ts). */
export function invoiceAttachments(merchant: Merchant): MailAttachments {
  return async (tx, mail) => {
    if (mail.kind !== 'invoice' || mail.order_id === null) return [];
    const invoice = await invoicePdf(tx, merchant, mail.order_id);
    return [
      { filename: `${invoice.invoiceNumber}.pdf`, content: invoice.pdf, contentType: 'application/pdf' },
    ];
  };
}

/** The order's lines as the invoice lists them, in the order they were written. */
const lines = (eb: ExpressionBuilder<DB & { o: DB['orders'] }, 'o'>) =>
  eb
    .selectFrom('order_lines as l')
    .select((eb) =>
      eb.fn
        .jsonAgg(
          jsonBuildObject({
            sku: eb.ref('l.sku'),
            name: eb.ref('l.name'),
            quantity: eb.ref('l.quantity'),
            price_cents: eb.ref('l.price_cents'),
          }),
        )
        .orderBy('l.id')
        .as('lines'),
    )
    .whereRef('l.order_id', '=', 'o.id')
    .$asScalar()
    .as('lines');

/** The order with what its invoice shows; `owner` limits to one store's orders of one mode. */
function invoicedOrder(em: EntityManager, orderId: number, owner?: Owner) {
  const invoiced = db(em)
    .selectFrom('orders as o')
    .innerJoin('stores as s', 's.id', 'o.store_id')
    .select((eb) => [
      'o.invoice_number',
      isoTime(eb.ref('o.invoice_issued_at'))
        .$castTo<Selectable<DB['orders']>['invoice_issued_at']>()
        .as('invoice_issued_at'),
      'o.order_number',
      'o.order_type',
      eb.ref('s.name').as('store_name'),
      eb.ref('s.owner_email').as('store_email'),
      'o.customer_name',
      'o.customer_email',
      'o.ship_address',
      'o.ship_address2',
      'o.ship_city',
      'o.ship_state',
      'o.ship_zip',
      'o.ship_country',
      'o.shipping_cents',
      'o.total_cents',
      'o.currency',
      'o.livemode',
      lines(eb),
    ])
    .where('o.id', '=', orderId);
  return first(owner === undefined ? invoiced : invoiced.where(ownedBy(owner, 'orders as o')));
}

/**
 * The order's tax invoice as a PDF, rendered from the order as it was shipped. 404 while the
 * order has no invoice (it is issued when the order ships). `owner` limits to one store's orders of
 * one mode.
 */
export async function invoicePdf(em: EntityManager, merchant: Merchant, orderId: number, owner?: Owner) {
  const o = await invoicedOrder(em, orderId, owner);
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
    livemode: o.livemode,
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
