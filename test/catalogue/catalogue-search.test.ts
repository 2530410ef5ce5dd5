import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GetProductFacetsResponse, ListProductsResponse } from '../../client/src/index.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fixtures } from '../helpers/fixtures.ts';

let app: TestApp;
let key: string;
let table: number;
let chair: number;

beforeAll(async () => {
  app = await startTestApp();
  key = (await app.createStore()).read;
  const fx = fixtures(app.em());
  const supplier = await fx.supplier();
  const acme = await fx.brand('Acme');
  const zenith = await fx.brand('Zenith');
  table = await fx.product({ supplierId: supplier, brandId: acme, name: 'Oak Table', sku: 'SRCH-1' });
  chair = await fx.product({ supplierId: supplier, brandId: zenith, name: 'Oakwood Chair', sku: 'SRCH-2' });
});
afterAll(() => app.close());

const ids = (body: ListProductsResponse) => body.products.map((p) => p.id);
const list = (query: string) => app.get<ListProductsResponse>(`/api/v1/products?${query}`, key);

describe('catalogue search fallback', () => {
  it('uses full text when it matches: "oak" finds the oak table, not the oakwood chair', async () => {
    const res = await list('search=oak');
    expect(ids(res.body)).toEqual([table]);
  });

  it('falls back to substring when full text matches nothing the other filters leave', async () => {
    // Full text matches only the Acme table, which brand=Zenith excludes; the substring match
    // still finds the Zenith "Oakwood" chair.
    const res = await list('search=oak&brand=zenith');
    expect(ids(res.body)).toEqual([chair]);
    const facets = await app.get<GetProductFacetsResponse>(
      '/api/v1/products/facets?search=oak&brand=zenith',
      key,
    );
    expect(facets.body.total_count).toBe(1);
  });

  it('falls back for partial words', async () => {
    const res = await list('search=akwoo');
    expect(ids(res.body)).toEqual([chair]);
  });
});
