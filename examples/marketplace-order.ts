/**
 * Posts a marketplace order (as a marketplace app would after a sale on, say, Etsy) and shows the
 * answer: `created`, `existing` (the same order was already posted: posting is idempotent on the
 * marketplace and its order id) or `held` (with the reason, e.g. an unmapped SKU).
 *
 *   npm run example -- marketplace-order [EXTERNAL_ORDER_ID] [SKU]
 *
 * Without a SKU it sells one unit of the store's first own-goods listing (the demo store has a
 * workshop of them). Run it twice with the same id to see `existing`.
 */
import { randomUUID } from 'node:crypto';
import { StocklessError } from '@stockless/sdk';
import { clientFromEnv } from './shared.ts';

const stockless = clientFromEnv();
const externalOrderId = process.argv[2] ?? `DEMO-${randomUUID().slice(0, 8)}`;

async function pickItem(sku: string | undefined) {
  const { products } = await stockless.listings.list({ own_goods: 'true', limit: 50 });
  const listing = sku ? products.find((p) => p.sku === sku) : products.find((p) => p.in_stock);
  if (!listing && !sku) throw new Error('The store has no own goods in stock to sell.');
  return { sku: sku ?? listing?.sku ?? '', price_cents: listing?.effective_retail_price_cents ?? 1000 };
}

try {
  const item = await pickItem(process.argv[3]);
  const answer = await stockless.externalOrders.post({
    marketplace: 'etsy',
    external_order_id: externalOrderId,
    placed_at: new Date().toISOString(),
    currency: 'AUD',
    customer: { email: 'mia@example.com', name: 'Mia Marketplace' },
    shipping: { address: '12 Collins St', city: 'Melbourne', state: 'VIC', zip: '3000', country: 'AU' },
    items: [{ sku: item.sku, quantity: 1, price_cents: item.price_cents }],
    total_cents: item.price_cents,
  });
  console.log(`etsy order ${externalOrderId}: ${answer.result}`);
  if (answer.order)
    console.log(
      `  Stockless order ${answer.order.order_number} (id ${answer.order.id}), ${answer.order.status}`,
    );
  for (const line of answer.hold?.lines ?? []) console.log(`  held: ${line.sku}: ${line.reason}`);
} catch (error) {
  if (!(error instanceof StocklessError)) throw error;
  console.error(
    `${error.status} ${error.category}/${error.code}: ${error.message} (request ${error.requestId})`,
  );
  for (const d of error.details ?? []) console.error(`  ${d.path}: ${d.message}`);
  process.exitCode = 1;
}
