import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_RANKED } from '../../src/catalogue/filters.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';

/**
 * A search reads its matches in the static order through product_search_terms
 * (Migration20261128030000_search_terms). Two things must hold:
 * - the table is exactly each product's lexemes at its recommended score, through inserts, updates
 *   of text, score or neither, bulk updates and deletes (its triggers);
 * - a search answers what a plain scan of the text index answers: for words drawn from the
 *   catalogue's own lexemes (common ones past the ranking bound, rare ones), two- and three-word and phrase
 *   queries, and terms with OR or a negation (which read no single lexeme), the list's ids in order,
 *   its total and lower-bound flag, a page past the bound, a sorted list's total and the facets' total.
 */

const VOCABULARY = [
  'oak',
  'pine',
  'birch',
  'walnut',
  'table',
  'chair',
  'stool',
  'bench',
  'lamp',
  'bowl',
  'saucepan',
  'hand-thrown',
  'glass',
  'cotton',
  'linen',
  'garden',
  'kitchen',
  'copper',
  'marble',
  'woven',
];
const PRODUCTS = 1_600;

let app: TestApp;
let key: string;

/** The words of product g, chosen by hashing: the same catalogue on every run. */
const pick = (salt: string) =>
  sql`(${VOCABULARY}::text[])[1 + abs(hashtext(g::text || ${salt})) % ${VOCABULARY.length}]`;

beforeAll(async () => {
  app = await startTestApp();
  key = (await app.createStore()).read;
  const supplier = await fixtures(app.em()).supplier();
  // "classic" sits in ~80% of descriptions: a word past the ranking bound.
  await rows(
    app.em(),
    sql`INSERT INTO products (supplier_id, name, description, sku, wholesale_price_cents, retail_price_cents,
        recommended_score, stock_quantity)
      SELECT ${supplier}, initcap(${pick('a')}) || ' ' || ${pick('b')} || ' ' || g,
        CASE WHEN abs(hashtext(g::text || 'c')) % 5 <> 0 THEN 'A classic ' ELSE 'A ' END
          || ${pick('d')} || ' ' || ${pick('e')} || '.',
        'TRM-' || g, 1000, 1000 + abs(hashtext(g::text || 'p')) % 5000, abs(hashtext(g::text || 's')) % 40,
        abs(hashtext(g::text || 'q')) % 3
      FROM generate_series(1, ${PRODUCTS}) g`,
  );
});
afterAll(() => app.close());

/** Entries that differ between the table and the products' own lexemes, both ways. */
async function drift(): Promise<number> {
  const [row] = await rows<{ n: number }>(
    app.em(),
    sql`SELECT count(*)::integer AS n FROM (
      (SELECT lexeme, score, product_id FROM product_search_terms
        EXCEPT ALL SELECT t.lexeme, p.recommended_score, p.id
          FROM products p, unnest(tsvector_to_array(p.search_vector)) AS t(lexeme))
      UNION ALL
      (SELECT t.lexeme, p.recommended_score, p.id
          FROM products p, unnest(tsvector_to_array(p.search_vector)) AS t(lexeme)
        EXCEPT ALL SELECT lexeme, score, product_id FROM product_search_terms)) d`,
  );
  return row?.n ?? -1;
}

describe('product_search_terms', () => {
  it('holds each product lexeme at its score after inserts', async () => {
    const [row] = await rows<{ n: number }>(
      app.em(),
      sql`SELECT count(*)::integer AS n FROM product_search_terms`,
    );
    expect(row?.n).toBeGreaterThan(PRODUCTS * 4);
    expect(await drift()).toBe(0);
  });

  it('follows updates of text, of score, of neither, in bulk, and deletes', async () => {
    const em = app.em();
    const [a, b, c, d] = (
      await rows<{ id: number }>(em, sql`SELECT id FROM products WHERE sku LIKE 'TRM-%' ORDER BY id LIMIT 4`)
    ).map((r) => r.id);
    await rows(em, sql`UPDATE products SET name = 'Zebrawood Sideboard' WHERE id = ${a}`);
    await rows(em, sql`UPDATE products SET recommended_score = recommended_score + 1000 WHERE id = ${b}`);
    await rows(
      em,
      sql`UPDATE products SET description = 'Quilted velvet.', recommended_score = 7 WHERE id = ${c}`,
    );
    await rows(em, sql`UPDATE products SET stock_quantity = stock_quantity + 5 WHERE sku LIKE 'TRM-%'`);
    await rows(
      em,
      sql`UPDATE products SET recommended_score = (recommended_score * 7) % 41 WHERE id % 3 = 0 AND sku LIKE 'TRM-%'`,
    );
    await rows(em, sql`DELETE FROM products WHERE id = ${d}`);
    expect(await drift()).toBe(0);
    const zebra = await app.get<{ products: { id: number }[] }>('/api/v1/products?search=zebrawood', key);
    expect(zebra.body.products.map((p) => p.id)).toEqual([a]);
  });
});

type Page = {
  products: { id: number }[];
  pagination: { total_count: number; total_count_is_lower_bound: boolean };
};

/** The documented order of a full-text search, from the text index alone (catalogue-search-bound). */
async function plainOrder(term: string): Promise<number[]> {
  const q = sql`websearch_to_tsquery('english', ${term})`;
  const ranked = await rows<{ id: number }>(
    app.em(),
    sql`WITH best AS (SELECT id, ts_rank_cd(search_vector, ${q}) AS r FROM products
        WHERE active AND search_vector @@ ${q} ORDER BY recommended_score DESC, id DESC LIMIT ${SEARCH_RANKED})
      SELECT id FROM best ORDER BY r DESC, id ASC`,
  );
  const rest = await rows<{ id: number }>(
    app.em(),
    sql`SELECT id FROM products WHERE active AND search_vector @@ ${q}
      ORDER BY recommended_score DESC, id DESC OFFSET ${SEARCH_RANKED}`,
  );
  return [...ranked, ...rest].map((r) => r.id);
}

const page = async (query: string) => {
  const res = await app.get<Page>(`/api/v1/products?${query}`, key);
  expect(res.status).toBe(200);
  return res.body;
};

/** Terms from the catalogue's own words: single, paired, three words, phrased, with OR and with a negation. */
function terms(): string[] {
  const out = [
    'classic',
    'classic oak',
    'hand-thrown',
    '"classic walnut"',
    'oak or pine',
    'table -oak',
    'OR table',
  ];
  for (let i = 0; i < 12; i++) {
    const w = VOCABULARY[(i * 7) % VOCABULARY.length] ?? 'oak';
    const v = VOCABULARY[(i * 11 + 3) % VOCABULARY.length] ?? 'pine';
    out.push(w, `${w} ${v}`, `${v} classic`, `${w} ${v} classic`);
  }
  return [...new Set(out)];
}

describe('a search read through the terms equals a plain scan', () => {
  it.each(terms())('%s', async (term) => {
    const expected = await plainOrder(term);
    expect(expected.length).toBeGreaterThan(0);
    const search = encodeURIComponent(term);
    const first = await page(`search=${search}&limit=100`);
    expect(first.products.map((p) => p.id)).toEqual(expected.slice(0, 100));
    expect(first.pagination).toMatchObject({
      total_count: Math.min(expected.length, SEARCH_RANKED),
      total_count_is_lower_bound: expected.length > SEARCH_RANKED,
    });
    if (expected.length > SEARCH_RANKED) {
      const past = await page(`search=${search}&limit=100&page=${SEARCH_RANKED / 100 + 1}`);
      expect(past.products.map((p) => p.id)).toEqual(expected.slice(SEARCH_RANKED, SEARCH_RANKED + 100));
    }
    const sorted = await page(`search=${search}&sort_by=sku&limit=5`);
    expect(sorted.pagination.total_count).toBe(first.pagination.total_count);
    const facets = await app.get<{ total_count: number }>(`/api/v1/products/facets?search=${search}`, key);
    expect(facets.status).toBe(200);
    expect(facets.body.total_count).toBe(first.pagination.total_count);
  });

  it('under another filter the matches are those the filter leaves, in the same order', async () => {
    const expected = await rows<{ id: number }>(
      app.em(),
      sql`SELECT id FROM products WHERE active AND stock_quantity > 0
        AND search_vector @@ websearch_to_tsquery('english', 'classic')
        ORDER BY recommended_score DESC, id DESC LIMIT ${SEARCH_RANKED + 1}`,
    );
    const body = await page('search=classic&in_stock=true&sort_by=sku&limit=1');
    expect(body.pagination.total_count).toBe(Math.min(expected.length, SEARCH_RANKED));
  });
});
