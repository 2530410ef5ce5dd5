import { Document, Page, renderToBuffer, StyleSheet, Text, View } from '@react-pdf/renderer';
import type { Style } from '@react-pdf/stylesheet';
import { createElement as h, type ReactElement } from 'react';
import type { Merchant } from '../settings.ts';

export interface InvoiceData {
  invoiceNumber: string;
  issuedAt: string;
  orderNumber: string;
  storeName: string;
  /** Who the invoice is issued to: the buyer, or the store for its wholesale orders. */
  billTo: { name: string; email: string };
  shipTo: { name: string };
  shipping: { address: string; address2: string; city: string; state: string; zip: string; country: string };
  lines: { sku: string; name: string; quantity: number; price_cents: number }[];
  shippingCents: number;
  totalCents: number;
  currency: string;
  /** A test order's invoice: marked as such, never a tax document. */
  livemode: boolean;
}

/** The document's title: a test invoice must never pass for a tax invoice. */
const titleOf = (d: InvoiceData) => (d.livemode ? 'Tax Invoice' : 'Test invoice: not a tax invoice');

const styles = StyleSheet.create({
  page: { padding: 40, fontSize: 10, fontFamily: 'Helvetica', color: '#1f2933' },
  title: { fontSize: 20, fontFamily: 'Helvetica-Bold', marginBottom: 4 },
  muted: { color: '#616e7c' },
  row: { flexDirection: 'row', justifyContent: 'space-between' },
  block: { marginTop: 16 },
  th: { fontFamily: 'Helvetica-Bold', borderBottom: '1 solid #cbd2d9', paddingBottom: 4, marginTop: 18 },
  td: { borderBottom: '0.5 solid #e4e7eb', paddingVertical: 4 },
  colItem: { width: '50%' },
  colQty: { width: '10%', textAlign: 'right' },
  colPrice: { width: '20%', textAlign: 'right' },
  totals: { marginTop: 12, marginLeft: '50%' },
  strong: { fontFamily: 'Helvetica-Bold' },
});

/** Cents as dollars, e.g. 123456 → "$1,234.56". */
export function money(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const dollars = Math.floor(abs / 100).toLocaleString('en-AU');
  return `${sign}$${dollars}.${String(abs % 100).padStart(2, '0')}`;
}

/** Australian prices include GST at 10%: the GST in a GST-inclusive amount is one eleventh. */
export function gstIncluded(cents: number): number {
  return Math.round(cents / 11);
}

function line(cells: [string, Style][], style: Style): ReactElement {
  return h(View, { style: [styles.row, style] }, ...cells.map(([text, s]) => h(Text, { style: s }, text)));
}

/** Who issues it, what it is, and for which order. */
function heading(merchant: Merchant, d: InvoiceData): ReactElement {
  return h(
    View,
    { style: styles.row },
    h(
      View,
      null,
      h(Text, { style: styles.title }, titleOf(d)),
      h(Text, null, `Invoice number: ${d.invoiceNumber}`),
      h(Text, null, `Date of issue: ${d.issuedAt.slice(0, 10)}`),
      h(Text, null, `Order: ${d.orderNumber}`),
    ),
    h(
      View,
      { style: { textAlign: 'right' } },
      h(Text, { style: styles.strong }, merchant.name),
      h(Text, null, `ABN ${merchant.abn}`),
      h(Text, null, merchant.address),
      h(Text, null, merchant.email),
    ),
  );
}

function parties(d: InvoiceData): ReactElement {
  const ship = d.shipping;
  return h(
    View,
    { style: styles.block },
    h(Text, { style: styles.strong }, 'Bill to'),
    h(Text, null, d.billTo.name),
    h(Text, null, d.billTo.email),
    h(Text, { style: [styles.strong, { marginTop: 8 }] }, 'Ship to'),
    h(Text, null, d.shipTo.name),
    h(Text, null, [ship.address, ship.address2].filter(Boolean).join(', ')),
    h(Text, null, `${ship.city} ${ship.state} ${ship.zip} ${ship.country}`),
  );
}

function lineItems(d: InvoiceData): ReactElement[] {
  const head: [string, Style][] = [
    ['Item', styles.colItem],
    ['Qty', styles.colQty],
    ['Unit price', styles.colPrice],
    ['Amount', styles.colPrice],
  ];
  return [
    line(head, styles.th),
    ...d.lines.map((l) =>
      line(
        [
          [`${l.name} (${l.sku})`, styles.colItem],
          [String(l.quantity), styles.colQty],
          [money(l.price_cents), styles.colPrice],
          [money(l.price_cents * l.quantity), styles.colPrice],
        ],
        styles.td,
      ),
    ),
  ];
}

function totals(d: InvoiceData): ReactElement {
  return h(
    View,
    { style: styles.totals },
    line(
      [
        ['Shipping', {}],
        [money(d.shippingCents), {}],
      ],
      {},
    ),
    line(
      [
        [`Total (${d.currency}, GST inclusive)`, styles.strong],
        [money(d.totalCents), styles.strong],
      ],
      {},
    ),
    line(
      [
        ['GST included (10%)', {}],
        [money(gstIncluded(d.totalCents)), {}],
      ],
      {},
    ),
  );
}

function invoiceDocument(merchant: Merchant, d: InvoiceData): ReactElement {
  return h(
    Document,
    { title: `${titleOf(d)} ${d.invoiceNumber}`, author: merchant.name },
    h(
      Page,
      { size: 'A4', style: styles.page },
      heading(merchant, d),
      h(
        View,
        { style: styles.block },
        h(
          Text,
          { style: styles.muted },
          `Sold through ${d.storeName} (channel of sale); ${merchant.name} is the merchant of record.`,
        ),
      ),
      parties(d),
      ...lineItems(d),
      totals(d),
      h(
        Text,
        { style: [styles.block, styles.muted] },
        'Prices include GST. Keep this invoice for your records.',
      ),
    ),
  );
}

/** Renders the tax invoice as a PDF. */
export async function renderInvoicePdf(merchant: Merchant, data: InvoiceData): Promise<Buffer> {
  return renderToBuffer(invoiceDocument(merchant, data) as Parameters<typeof renderToBuffer>[0]);
}
