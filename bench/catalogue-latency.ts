import pg from 'pg';
import { SORT_KEYS } from '../src/catalogue/schemas.ts';
import { median, quantile, round, SMALL, timedGet } from './lib.ts';

/**
 * What one partner meets browsing the catalogue: every spec filter alone, every sort, all filters
 * at once, a 500-row page, a deep page, and the facets of each filter, one request at a time. Each
 * URL is asked ROUNDS times on each side, the API and the raw replay of its own statements
 * alternating, so both see the same cache state; p50 is the median of the rounds' medians, p99 is
 * over every sample.
 */

const ROUNDS = 5;
const PER_ROUND = Number(process.env.BENCH_LATENCY_SAMPLES ?? (SMALL ? 2 : 8));

export interface LatencyScenario {
  name: string;
  url: string;
  kind: 'list' | 'list 500' | 'deep page' | 'facets' | 'orders';
}

/** The bench store's orders: first and 500th page, each filter, each sort. */
const ORDER_FILTERS: [string, string][] = [
  ['first page', ''],
  ['page 500', 'page=500'],
  ['status', 'status=shipped'],
  ['date range', 'start_date=2026-02-01&end_date=2026-02-28'],
  ['search', 'search=cara%20nguyen%2012'],
  ['attention', 'attention=1'],
  ['channel', 'channel=google'],
  ['all filters', 'status=shipped&start_date=2026-01-15&channel=google&search=nguyen'],
  ['sort updated_at', 'sort_by=updated_at'],
  ['sort id asc', 'sort_by=id&order=asc'],
];

/** Real values to filter on, read from the bench database so every filter matches something. */
export async function latencyScenarios(databaseUrl: string): Promise<LatencyScenario[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const one = async (text: string) => String((await client.query(text)).rows[0]?.v ?? '');
    const supplier = await one(
      'SELECT supplier_id AS v FROM products GROUP BY 1 ORDER BY count(*) DESC LIMIT 1',
    );
    const brand = await one(
      'SELECT b.name AS v FROM products p JOIN brands b ON b.id = p.brand_id GROUP BY 1 ORDER BY count(*) DESC LIMIT 1',
    );
    const category = await one(
      'SELECT c.slug AS v FROM products p JOIN categories c ON c.id = p.category_id GROUP BY 1 ORDER BY count(*) DESC LIMIT 1',
    );
    const storeType = await one('SELECT slug AS v FROM store_types ORDER BY id LIMIT 1');
    const filters: [string, string][] = [
      ['no filter', ''],
      ['search broad', 'search=oak'],
      ['search two words', 'search=walnut%20chair'],
      ['search substring fallback (part of a word)', 'search=alnu'],
      ['search short term (2 characters)', 'search=xq'],
      ['search sku fragment', 'search=SL-00012'],
      ['in_stock', 'in_stock=true'],
      ['pricing_type', 'pricing_type=commission'],
      ['supplier_id', `supplier_id=${supplier}`],
      ['brand', `brand=${encodeURIComponent(brand)}`],
      ['category', `category=${category}`],
      ['store_type', `store_type=${storeType}`],
      ['exclude_in_store', 'exclude_in_store=true'],
      ['purchase_mode', 'purchase_mode=enquiry'],
      ['price band edges', 'price_min_cents=5000&price_max_cents=10000'],
      ['price off-band', 'price_min_cents=3000&price_max_cents=7000'],
      ['ready_to_list', 'ready_to_list=true'],
      ['complete_for', 'complete_for=storefront'],
      ['scope=store', 'scope=store'],
      ['ownership', 'ownership=btab'],
      [
        'all filters',
        `in_stock=true&pricing_type=wholesale&category=${category}&purchase_mode=buy_now&price_min_cents=2500&ready_to_list=true&exclude_in_store=true&scope=all`,
      ],
    ];
    const q = (s: string) => (s ? `&${s}` : '');
    return [
      ...filters.map(([name, f]) => ({
        name,
        url: `/api/v1/products?limit=20${q(f)}`,
        kind: 'list' as const,
      })),
      ...SORT_KEYS.map((s) => ({
        name: `sort ${s}`,
        url: `/api/v1/products?limit=20&sort_by=${s}`,
        kind: 'list' as const,
      })),
      { name: 'limit=500', url: '/api/v1/products?limit=500', kind: 'list 500' },
      { name: 'page 5000', url: '/api/v1/products?limit=20&page=5000', kind: 'deep page' },
      ...filters.map(([name, f]) => ({
        name: `facets ${name}`,
        url: `/api/v1/products/facets${f ? `?${f}` : ''}`,
        kind: 'facets' as const,
      })),
      ...ORDER_FILTERS.map(([name, f]) => ({
        name: `orders ${name}`,
        url: `/api/v1/orders?limit=20${q(f)}`,
        kind: 'orders' as const,
      })),
    ];
  } finally {
    await client.end();
  }
}

export interface LatencyFigure {
  name: string;
  url: string;
  kind: LatencyScenario['kind'];
  api_p50_ms: number;
  api_p99_ms: number;
  raw_p50_ms: number;
  raw_p99_ms: number;
  /** api p50 / raw p50: what the API adds to its own SQL. */
  ratio: number;
  api_p50_spread_ms: [number, number];
}

export async function benchCatalogueLatency(
  scenarios: LatencyScenario[],
  bases: { api: string; raw: string },
  headers: Record<string, string>,
  onFigure: (figure: LatencyFigure) => void = () => {},
): Promise<LatencyFigure[]> {
  const out: LatencyFigure[] = [];
  for (const s of scenarios) {
    await timedGet(bases.api + s.url, headers);
    await timedGet(bases.raw + s.url, headers);
    const api: number[][] = [];
    const raw: number[][] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const sides = round % 2 === 0 ? (['api', 'raw'] as const) : (['raw', 'api'] as const);
      for (const side of sides) {
        const samples: number[] = [];
        for (let i = 0; i < PER_ROUND; i++) samples.push(await timedGet(bases[side] + s.url, headers));
        (side === 'api' ? api : raw).push(samples);
      }
    }
    const apiMedians = api.map(median);
    const rawP50 = median(raw.map(median));
    const apiP50 = median(apiMedians);
    const figure: LatencyFigure = {
      name: s.name,
      url: s.url,
      kind: s.kind,
      api_p50_ms: round(apiP50),
      api_p99_ms: round(quantile(api.flat(), 0.99)),
      raw_p50_ms: round(rawP50),
      raw_p99_ms: round(quantile(raw.flat(), 0.99)),
      ratio: round(apiP50 / rawP50),
      api_p50_spread_ms: [round(Math.min(...apiMedians)), round(Math.max(...apiMedians))],
    };
    out.push(figure);
    onFigure(figure);
  }
  return out;
}

/** The issue's targets by kind: p50 and p99 at one connection, in ms. */
export const LATENCY_TARGETS: Record<LatencyScenario['kind'], { p50: number; p99?: number }> = {
  list: { p50: 15, p99: 60 },
  'list 500': { p50: 40 },
  'deep page': { p50: 45 },
  facets: { p50: 15, p99: 50 },
  orders: { p50: 15 },
};

/**
 * BENCH_LATENCY_MATCH (a regular expression on the scenario's name, e.g. `^orders` or `^(?!.*search)`):
 * measure only those, for a quick look at one area.
 */
export function selectedScenarios(scenarios: LatencyScenario[]): LatencyScenario[] {
  const match = process.env.BENCH_LATENCY_MATCH;
  return match ? scenarios.filter((s) => new RegExp(match).test(s.name)) : scenarios;
}
