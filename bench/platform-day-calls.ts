import { SORT_KEYS } from '../src/catalogue/schemas.ts';
import { ADJECTIVES, CATEGORIES, COLOURS, MATERIALS } from '../src/demo/taxonomy.ts';
import { ORDER_STATUSES } from '../src/order-status.ts';

/** Issue 27's mix, in percent of requests, and issue 30's reads beside it (3 in 103). */
export const WEIGHTS = {
  ...{ browse: 15, filtered: 15, search: 12, facets: 8, product: 12 }, // the catalogue
  ...{ 'my-products': 8, orders: 5, order: 4, inventory: 6, events: 3 }, // the store's own reads
  ...{ wholesale: 7, marketplace: 5 }, // orders placed
  ...{ requests: 2, exports: 1 }, // issue 30's reads: a partner tailing its request log, its exports
};
/** The weights' sum: a class is drawn by a roll of 0 to it. */
export const TOTAL_WEIGHT = Object.values(WEIGHTS).reduce((n, w) => n + w, 0);
export type ClassName = keyof typeof WEIGHTS;
export const CLASSES = Object.keys(WEIGHTS) as ClassName[];
/** A long poll waits by design (up to `wait` s): timed as a class of its own, left out of the overall p50/p99. */
export const LONG_POLL: ClassName = 'events';
/** The classes that only read, and so can be replayed raw (bench/platform-day-raw.ts). */
export const READ_CLASSES = CLASSES.filter((c) => !['wholesale', 'marketplace', LONG_POLL].includes(c));

const WORDS = [...ADJECTIVES, ...MATERIALS, ...COLOURS, ...CATEGORIES.flatMap((c) => c[4])];
const BUYER = {
  customer: { email: 'day@example.com', name: 'Day Buyer', phone: '0400000000' },
  shipping: { address: '1 Day St', city: 'Sydney', state: 'NSW', zip: '2000', country: 'AU' },
};

/** What the day's requests are drawn from, and the cursors and counters the connections share. */
export interface DayState {
  brands: { name: string; slug: string }[];
  products: number[];
  orderIds: number[];
  buyable: { product_id: number; variant_id: number }[];
  market: { skus: string[]; tokens: string[] };
  writeKey: string;
  runId: string;
  feed: string;
  eventCursor: string;
  bought: number;
  posted: number;
}

/** A path under /api/v1, with the credential and body of a write. */
export type Call = [string, string?, object?];

/** Each class's next request, drawn from `rnd`; `index` is the connection's (its own app token). */
export function dayCalls(state: DayState, rnd: () => number, index: number): Record<ClassName, () => Call> {
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)] as T;
  const kinds = [
    () => `in_stock=${pick(['true', 'false'])}`,
    () => `pricing_type=${pick(['wholesale', 'commission'])}`,
    () => `category=${pick(CATEGORIES)[0]}`,
    () => `brand=${encodeURIComponent(pick(state.brands)[pick(['name', 'slug'] as const)])}`,
    () => `price_min_cents=${int(0, 60_000)}`,
    () => `price_max_cents=${int(1, 80_000)}`,
  ];
  // Distinct kinds: a parameter sent twice is a 400.
  const filters = (n: number) => {
    const left = [...kinds];
    return Array.from({ length: n }, () => left.splice(int(0, left.length - 1), 1)[0]?.()).join('&');
  };
  const words = () => Array.from({ length: int(1, 2) }, () => pick(WORDS).toLowerCase()).join(' ');
  const sort = () => `sort_by=${pick(SORT_KEYS)}&order=${pick(['asc', 'desc'])}`;
  const byStatus = () => pick(['', '', '', `&status=${pick(ORDER_STATUSES)}`]);
  const orderSort = () => `sort_by=${pick(['created_at', 'updated_at', 'id'])}${byStatus()}`;
  const variants = () => pick(['', '&include=variants']);
  return {
    browse: () => [`/products?page=${int(1, 10)}`],
    filtered: () => [`/products?${filters(int(1, 3))}&${sort()}&page=${int(1, 50)}`],
    search: () => [`/products?search=${encodeURIComponent(words())}`],
    facets: () => {
      const chosen = filters(int(0, 2));
      return [chosen ? `/products/facets?${chosen}` : '/products/facets'];
    },
    product: () => [`/products/${pick(state.products)}`],
    'my-products': () => [`/my-products?page=${int(1, 10)}&limit=${pick([20, 100])}${variants()}`],
    orders: () => [`/orders?page=${int(1, 5)}&${orderSort()}`],
    // Until the key's mode has an order in the store, an order read is a list read.
    order: () => [state.orderIds.length ? `/orders/${pick(state.orderIds)}` : '/orders'],
    inventory: () => [`/inventory?limit=100&updated_since=${encodeURIComponent(state.feed)}`],
    events: () => [`/events?order=asc&wait=${int(1, 2)}&cursor=${encodeURIComponent(state.eventCursor)}`],
    requests: () => {
      const since = new Date(Date.now() - int(1, 7 * 24) * 3_600_000).toISOString();
      const filter = pick([
        '',
        '',
        'status_class=4xx&',
        'status=429&',
        'operation=listProducts&',
        `created_gte=${since}&`,
      ]);
      return [`/requests?${filter}limit=${pick([20, 100])}`];
    },
    exports: () => [`/exports?limit=${pick([10, 20, 100])}`],
    wholesale: () => {
      const { product_id, variant_id } = state.buyable[state.bought++ % state.buyable.length] as {
        product_id: number;
        variant_id: number;
      };
      return ['/orders', state.writeKey, { ...BUYER, items: [{ product_id, variant_id, quantity: 1 }] }];
    },
    marketplace: () => {
      const n = state.posted++;
      const { skus, tokens } = state.market;
      const line = { sku: skus[n % skus.length], quantity: 1, price_cents: 4500 };
      const post = { marketplace: 'etsy', external_order_id: `pday-${state.runId}-${n}`, currency: 'AUD' };
      const sale = { placed_at: new Date().toISOString(), items: [line], total_cents: 4500 };
      return ['/orders/external', tokens[index], { ...post, ...sale, ...BUYER }];
    },
  };
}
