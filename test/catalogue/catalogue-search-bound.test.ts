import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_RANKED } from '../../src/catalogue/filters.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';

// A broad term ("cedar", past the bound) and a narrow one ("birch", under it), with names, SKUs and
// descriptions that give the full-text ranks several distinct values and the recommended score many
// ties, so both orders have to hold, not only one.
const BROAD = SEARCH_RANKED + 150;
const NARROW = 40;

let app: TestApp;
let key: string;

beforeAll(async () => {
  app = await startTestApp();
  key = (await app.createStore()).read;
  const supplier = await fixtures(app.em()).supplier();
  await rows(
    app.em(),
    sql`INSERT INTO products (supplier_id, name, description, sku, wholesale_price_cents, retail_price_cents,
        recommended_score)
      SELECT ${supplier},
        CASE WHEN g % 3 = 0 THEN 'Cedar Bench ' || g ELSE 'Garden Bench ' || g END,
        CASE WHEN g % 2 = 0 THEN 'Cedar slats, cedar legs.' ELSE 'Slatted cedar.' END,
        'BND-' || g, 1000, CASE WHEN g % 2 = 0 THEN 2000 ELSE 150000 END, (g * 7919) % 97
      FROM generate_series(1, ${BROAD}) g`,
  );
  await rows(
    app.em(),
    sql`INSERT INTO products (supplier_id, name, description, sku, wholesale_price_cents, retail_price_cents,
        recommended_score)
      SELECT ${supplier}, CASE WHEN g % 4 = 0 THEN 'Birch Stool ' || g ELSE 'Stool ' || g END,
        'Birch ' || repeat('birch ', g % 3), 'NRW-' || g, 1000, 2000, g % 5
      FROM generate_series(1, ${NARROW}) g`,
  );
});
afterAll(() => app.close());

type Page = {
  products: { id: number; name: string }[];
  pagination: { total_count: number; total_pages: number; total_count_is_lower_bound: boolean };
};
const list = async (query: string) => {
  const res = await app.get<Page>(`/api/v1/products?${query}`, key);
  expect(res.status).toBe(200);
  return res.body;
};
const ids = (body: Page) => body.products.map((p) => p.id);

/** The relevance order the API promises, computed directly. */
async function expectedOrder(term: string): Promise<number[]> {
  const ranked = await rows<{ id: number }>(
    app.em(),
    sql`WITH m AS (SELECT id, recommended_score, ts_rank_cd(search_vector, websearch_to_tsquery('english', ${term})) AS r
        FROM products WHERE search_vector @@ websearch_to_tsquery('english', ${term})),
      best AS (SELECT * FROM m ORDER BY recommended_score DESC, id DESC LIMIT ${SEARCH_RANKED})
      SELECT id FROM best ORDER BY r DESC, id ASC`,
  );
  const rest = await rows<{ id: number }>(
    app.em(),
    sql`SELECT id FROM products WHERE search_vector @@ websearch_to_tsquery('english', ${term})
      ORDER BY recommended_score DESC, id DESC OFFSET ${SEARCH_RANKED}`,
  );
  return [...ranked, ...rest].map((r) => r.id);
}

describe('search past the ranking bound', () => {
  it('reports the bound as a lower bound, with its pages', async () => {
    const body = await list('search=cedar&limit=20');
    expect(body.pagination).toMatchObject({
      total_count: SEARCH_RANKED,
      total_pages: SEARCH_RANKED / 20,
      total_count_is_lower_bound: true,
    });
  });

  it('lists every match exactly once across pages, past the bound too, in the documented order', async () => {
    const seen: number[] = [];
    for (let page = 1; page <= 10; page++) {
      const body = await list(`search=cedar&limit=200&page=${page}`);
      if (body.products.length === 0) break;
      seen.push(...ids(body));
    }
    expect(seen).toHaveLength(BROAD);
    expect(seen).toEqual(await expectedOrder('cedar'));
  });

  it('gives the same order whatever the page size (a page straddling the bound included)', async () => {
    const order = await expectedOrder('cedar');
    const straddle = await list(`search=cedar&limit=30&page=${Math.floor(SEARCH_RANKED / 30) + 1}`);
    const at = Math.floor(SEARCH_RANKED / 30) * 30;
    expect(ids(straddle)).toEqual(order.slice(at, at + 30));
  });

  it('keeps the bound under another sort, and pages in that sort', async () => {
    const body = await list('search=cedar&sort_by=sku&limit=5');
    expect(body.pagination).toMatchObject({ total_count: SEARCH_RANKED, total_count_is_lower_bound: true });
    const skus = await rows<{ id: number }>(
      app.em(),
      sql`SELECT id FROM products WHERE search_vector @@ 'cedar'::tsquery ORDER BY sku, id LIMIT 5`,
    );
    expect(ids(body)).toEqual(skus.map((r) => r.id));
  });
});

describe('search under the bound', () => {
  it('counts exactly and ranks every match by relevance, ties by id', async () => {
    const body = await list('search=birch&limit=100');
    expect(body.pagination).toMatchObject({ total_count: NARROW, total_count_is_lower_bound: false });
    expect(ids(body)).toEqual(await expectedOrder('birch'));
    const ascending = await list('search=birch&limit=100&order=asc');
    const ranks = await rows<{ id: number }>(
      app.em(),
      sql`SELECT id FROM products WHERE search_vector @@ 'birch'::tsquery
        ORDER BY ts_rank_cd(search_vector, 'birch'::tsquery) ASC, id ASC`,
    );
    expect(ids(ascending)).toEqual(ranks.map((r) => r.id));
  });

  it('says nothing is a lower bound when a sort is asked for', async () => {
    const body = await list('search=birch&sort_by=name&limit=5');
    expect(body.pagination).toMatchObject({ total_count: NARROW, total_count_is_lower_bound: false });
    expect(body.products.map((p) => p.name)).toEqual([...body.products.map((p) => p.name)].sort());
  });

  it('falls back to a substring of three characters or more, never to a shorter one', async () => {
    const three = await list('search=irc&limit=100');
    expect(three.pagination.total_count).toBe(10);
    expect(three.products.every((p) => p.name.startsWith('Birch'))).toBe(true);
    const two = await list('search=ir');
    expect(two.pagination).toMatchObject({ total_count: 0, total_count_is_lower_bound: false });
  });
});

describe('facets of a search', () => {
  type Facets = {
    facets: Record<string, { value: string; count: number }[]>;
    total_count: number;
    total_count_is_lower_bound: boolean;
  };
  const facets = async (query: string) => {
    const res = await app.get<Facets>(`/api/v1/products/facets?${query}`, key);
    expect(res.status).toBe(200);
    return res.body;
  };

  it('past the bound, count within the 1,000 the list ranks, and say the counts are lower bounds', async () => {
    const body = await facets('search=cedar');
    expect(body.total_count_is_lower_bound).toBe(true);
    expect(body.total_count).toBe(SEARCH_RANKED);
    const dear = await rows<{ n: number }>(
      app.em(),
      sql`SELECT count(*) FILTER (WHERE retail_price_cents >= 100000)::integer AS n FROM (
          SELECT retail_price_cents FROM products WHERE search_vector @@ 'cedar'::tsquery
          ORDER BY recommended_score DESC, id DESC LIMIT ${SEARCH_RANKED}) best`,
    );
    const band = body.facets.price_band?.find((b) => b.value === '100000-');
    expect(band?.count).toBe(dear[0]?.n);
    expect(band?.count).not.toBe(Math.ceil(BROAD / 2));
    const filtered = await facets('search=cedar&price_min_cents=100000');
    expect(filtered.total_count).toBe(dear[0]?.n);
    expect(filtered.total_count_is_lower_bound).toBe(true);
  });

  it('under the bound, count every match exactly, as the list does', async () => {
    const body = await facets('search=birch');
    expect(body).toMatchObject({ total_count: NARROW, total_count_is_lower_bound: false });
    expect(body.facets.in_stock).toEqual([{ value: 'false', count: NARROW }]);
    const none = await facets('search=birch&in_stock=true');
    expect(none).toMatchObject({ total_count: 0, total_count_is_lower_bound: false });
  });
});
