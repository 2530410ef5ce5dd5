import { availableParallelism } from 'node:os';
import type { EntityManager } from '@mikro-orm/postgresql';
import { foldFacetCells } from '../catalogue/cells.ts';
import { channelSummary, readinessColumns, recordCompleteness } from '../catalogue/readiness-scores.ts';
import { db } from '../db/kysely.ts';
import { first, type RawBuilder, rows, run, sql } from '../db/sql.ts';
import { slugify } from '../store/slug.ts';
import {
  ADJECTIVES,
  BRAND_SUFFIXES,
  BRAND_WORDS,
  CATEGORIES,
  COLOURS,
  MATERIALS,
  STORE_TYPES,
  SUPPLIER_KINDS,
  SUPPLIER_WORDS,
} from './taxonomy.ts';

const BATCH = 10_000;
/** Batches loaded at once: one per core, at most four (the CLI's pool holds four connections). */
const SEED_WORKERS = Math.max(1, Math.min(4, availableParallelism()));
const SENTENCES = [
  'Designed in Australia and made to last.',
  'Finished by hand, so no two pieces are quite the same.',
  'Sustainably sourced materials throughout.',
  'Ships flat-packed with simple tool-free assembly.',
  'Easy to clean and built for everyday family life.',
  'Pairs beautifully with the rest of the collection.',
];
const RAW_CATEGORIES = ['Misc', 'Clearance', 'New Arrivals', 'Uncategorised'];

/** A deterministic pseudo-random non-negative integer for row `g` and stream `k`. */
function h(g: RawBuilder<unknown>, k: number): RawBuilder<number> {
  return sql<number>`(hashint4(${g} * 131 + ${sql.lit(k)}) & 2147483647)`;
}
const pick = (arr: string, n: RawBuilder<number>) =>
  sql`(${sql.raw(arr)})[1 + ${n} % cardinality(${sql.raw(arr)})]`;

/** Store types, categories, brands and platform suppliers; idempotent. */
export async function seedTaxonomy(em: EntityManager): Promise<void> {
  await em.transactional(async (tx) => {
    for (const [slug, name] of STORE_TYPES) {
      await run(
        db(tx)
          .insertInto('store_types')
          .values({ slug, name })
          .onConflict((oc) => oc.column('slug').doNothing()),
      );
    }
    for (const [slug, name, parent, type] of CATEGORIES) {
      await run(
        db(tx)
          .insertInto('categories')
          .values((eb) => ({
            slug,
            name,
            parent_id: eb.selectFrom('categories').select('id').where('slug', '=', parent),
            store_type_id: eb.selectFrom('store_types').select('id').where('slug', '=', type),
          }))
          .onConflict((oc) => oc.column('slug').doNothing()),
      );
    }
    for (const word of BRAND_WORDS) {
      for (const suffix of BRAND_SUFFIXES) {
        const name = `${word} ${suffix}`;
        await run(
          db(tx)
            .insertInto('brands')
            .values({ name, slug: slugify(name) })
            .onConflict((oc) => oc.doNothing()),
        );
      }
    }
    await seedSuppliers(tx);
  });
}

/** The platform's suppliers, unless it has some already. */
async function seedSuppliers(tx: EntityManager) {
  const platform = await first(
    db(tx)
      .selectFrom('suppliers')
      .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n'))
      .where('owner_store_id', 'is', null),
  );
  if ((platform?.n ?? 0) > 0) return;
  const names = SUPPLIER_WORDS.flatMap((w) => SUPPLIER_KINDS.map((k) => `${w} ${k}`));
  await run(
    db(tx)
      .insertInto('suppliers')
      .values(names.map((name) => ({ name }))),
  );
}

/**
 * Adds `count` catalogue products (with variants, options, images and drawings) in batches, all
 * derived from the row number, so the same seed always produces the same catalogue.
 */
export async function seedProducts(
  em: EntityManager,
  count: number,
  onProgress: (done: number, total: number) => void = () => {},
): Promise<{ first: number; last: number }> {
  await seedTaxonomy(em);
  const meta = await poolsAndStart(em);
  // One (category, noun) pair per entry, so a product's name always fits its category.
  const catRows = await run(db(em).selectFrom('categories').select(['id', 'name', 'slug']));
  const bySlug = new Map(catRows.map((c) => [c.slug, c]));
  const cat: number[] = [];
  const cname: string[] = [];
  const nouns: string[] = [];
  for (const [slug, , , , words] of CATEGORIES) {
    const c = bySlug.get(slug);
    if (!c) continue;
    for (const w of words) {
      cat.push(c.id);
      cname.push(c.name);
      nouns.push(w);
    }
  }
  const first = meta.start;
  const last = first + count - 1;
  const starts: number[] = [];
  for (let lo = first; lo <= last; lo += BATCH) starts.push(lo);
  // Batches are independent (each product derives from its id), so they run side by side, one
  // transaction each on its own connection: the load uses every core PostgreSQL has.
  let done = 0;
  const worker = async () => {
    for (let lo = starts.shift(); lo !== undefined; lo = starts.shift()) {
      const hi = Math.min(last, lo + BATCH - 1);
      await em.fork().transactional(async (tx) => {
        await insertBatch(tx, lo, hi, { sup: meta.sup, br: meta.br, cat, cname, nouns });
      });
      done += hi - lo + 1;
      onProgress(done, count);
    }
  };
  await Promise.all(Array.from({ length: Math.min(SEED_WORKERS, starts.length) }, worker));
  // The batches left their facet deltas unfolded (Migration20261125090000_bulk_load_folds).
  await foldFacetCells(em);
  // The products were inserted with their ids: the identity goes on after the highest.
  await run(
    db(em).selectNoFrom((eb) =>
      eb
        .fn('setval', [
          eb.fn('pg_get_serial_sequence', [sql.lit('products'), sql.lit('id')]),
          eb.selectFrom('products').select((eb) => eb.fn.max('id').as('max')),
        ])
        .as('setval'),
    ),
  );
  return { first, last };
}

/** The next product id, and the platform's suppliers and the brands a product is drawn from. */
async function poolsAndStart(em: EntityManager) {
  const top = await first(
    db(em)
      .selectFrom('products')
      .select((eb) => eb.fn.max<number | null>('id').as('id')),
  );
  const suppliers = await run(
    db(em).selectFrom('suppliers').select('id').where('owner_store_id', 'is', null).orderBy('id'),
  );
  const brands = await run(db(em).selectFrom('brands').select('id').orderBy('id'));
  return { start: (top?.id ?? 0) + 1, sup: suppliers.map((s) => s.id), br: brands.map((b) => b.id) };
}

interface Pools {
  sup: number[];
  br: number[];
  cat: number[];
  cname: string[];
  nouns: string[];
}

/** The stock of variant `v` of product `id` (a variant's and its product's sum must agree). */
const variantStock = (id: RawBuilder<unknown>, v: RawBuilder<unknown>) =>
  sql`(CASE WHEN ${h(id, 30)} % 9 = 0 THEN 0 ELSE (${h(id, 31)} + ${v} * 7) % 40 END)`;
/** How many variants product `id` has. */
const variantCount = (id: RawBuilder<unknown>) => sql`(1 + ${h(id, 20)} % 4)`;

/**
 * One batch, in one transaction: products inserted whole, their stock summed from the variants
 * inserted next and their readiness scored as they go in (readiness-scores.ts), so each product is written
 * once. Under `stockless.bulk_load` the variants' insert leaves the products alone (migration
 * Migration20261125060000_bulk_load_stock) and the facet deltas wait for one fold at the end
 * (Migration20261125090000_bulk_load_folds). A seeded product stays exactly as the readiness pass
 * would score it (a test runs the pass after a seed and sees nothing change).
 */
async function insertBatch(tx: EntityManager, lo: number, hi: number, pools: Pools) {
  await rows(tx, sql`SET LOCAL stockless.bulk_load = 'on'`);
  await insertProducts(tx, lo, hi, pools);
  await recordCompleteness(tx, lo, hi);
  await insertVariants(tx, lo, hi);
  await insertProductDetails(tx, lo, hi);
}

/** The batch's products, whole: drawn from the pools by hashes of the id, stock and readiness included. */
async function insertProducts(tx: EntityManager, lo: number, hi: number, pools: Pools) {
  const g = sql`g`;
  const scored = readinessColumns(sql`src`, sql`sc.storefront`, sql`sc.mask`);
  await rows(
    tx,
    sql`WITH pools AS (
        SELECT ${pools.sup}::integer[] AS sup, ${pools.br}::integer[] AS br, ${pools.cat}::integer[] AS cat,
          ${pools.cname}::text[] AS cname, ${pools.nouns}::text[] AS nouns, ${ADJECTIVES}::text[] AS adj,
          ${MATERIALS}::text[] AS mat, ${SENTENCES}::text[] AS sent, ${RAW_CATEGORIES}::text[] AS raw
      ), base AS (
        SELECT g, 1 + ${h(g, 4)} % cardinality(pools.cat) AS pair,
          (${h(g, 5)} % 20 = 0) AS uncategorised,
          500 + ${h(g, 6)} % 60000 AS wholesale,
          pools.*
        FROM generate_series(${lo}::integer, ${hi}::integer) g, pools
      ), src AS MATERIALIZED (
        SELECT g AS id,
          ${pick('sup', h(g, 1))} AS supplier_id,
          CASE WHEN ${h(g, 2)} % 10 = 0 THEN NULL ELSE ${pick('br', h(g, 3))} END AS brand_id,
          CASE WHEN uncategorised THEN NULL ELSE cat[pair] END AS category_id,
          CASE WHEN uncategorised THEN ${pick('raw', h(g, 7))} ELSE cname[pair] END AS category_raw,
          ${pick('adj', h(g, 8))} || ' ' || ${pick('mat', h(g, 9))} || ' ' || nouns[pair] AS name,
          CASE WHEN ${h(g, 10)} % 8 = 0 THEN ''
            ELSE 'A ' || lower(${pick('adj', h(g, 8))}) || ' ' || lower(nouns[pair]) || ' in ' || lower(${pick('mat', h(g, 9))}) || '. '
              || array_to_string(sent[1 + ${h(g, 11)} % 6 : 1 + ${h(g, 11)} % 6 + ${h(g, 12)} % 3], ' ') END AS description,
          'SL-' || lpad(g::text, 7, '0') AS sku,
          wholesale AS wholesale_price_cents,
          (wholesale * (160 + ${h(g, 13)} % 80) / 100 / 100) * 100 + 99 AS retail_price_cents,
          CASE WHEN ${h(g, 14)} % 7 = 0 THEN 'commission' ELSE 'wholesale' END AS pricing_type,
          CASE WHEN ${h(g, 14)} % 7 = 0 THEN 1500 + (${h(g, 15)} % 16) * 100 ELSE 0 END AS commission_rate_bps,
          CASE WHEN ${h(g, 16)} % 20 = 0 THEN 'enquiry' ELSE 'buy_now' END AS purchase_mode,
          ${h(g, 17)} % 50 <> 0 AS active,
          CASE WHEN ${h(g, 18)} % 12 = 0 THEN NULL ELSE 'https://images.stockless.example/products/' || g || '/1.jpg' END AS image_url,
          CASE WHEN ${h(g, 19)} % 7 = 0 THEN NULL ELSE (10 + ${h(g, 19)} % 4000) / 10.0 END AS weight_oz,
          CASE WHEN ${h(g, 22)} % 3 = 0 THEN NULL ELSE 20 + ${h(g, 23)} % 200 END AS width_cm,
          CASE WHEN ${h(g, 22)} % 3 = 0 THEN NULL ELSE 20 + ${h(g, 24)} % 120 END AS depth_cm,
          CASE WHEN ${h(g, 22)} % 3 = 0 THEN NULL ELSE 10 + ${h(g, 25)} % 180 END AS height_cm,
          timestamptz '2025-01-01 00:00:00+00' + (${h(g, 26)} % 600) * interval '1 day' + (g % 1440) * interval '1 minute' AS created_at,
          timestamptz '2026-09-01 00:00:00+00' + (${h(g, 27)} % 60) * interval '1 day' + (g % 1440) * interval '1 minute' AS updated_at,
          (SELECT sum(${variantStock(g, sql`v`)}) FROM generate_series(1, ${variantCount(g)}) v)::integer AS stock_quantity
        FROM base
      )
      INSERT INTO products (id, supplier_id, brand_id, category_id, category_raw, name, description, sku,
        wholesale_price_cents, retail_price_cents, pricing_type, commission_rate_bps, purchase_mode, active,
        image_url, weight_oz, width_cm, depth_cm, height_cm, created_at, updated_at, stock_quantity,
        readiness_score, ready_to_list, complete_channels, recommended_score, readiness_checked_at)
      SELECT id, supplier_id, brand_id, category_id, category_raw, name, description, sku,
        wholesale_price_cents, retail_price_cents, pricing_type, commission_rate_bps, purchase_mode, active,
        image_url, weight_oz, width_cm, depth_cm, height_cm, created_at, updated_at, stock_quantity,
        ${scored.readiness_score}, ${scored.ready_to_list}, ${scored.complete_channels},
        ${scored.recommended_score}, now()
      FROM src CROSS JOIN LATERAL ${channelSummary(sql`src`)} sc`,
  );
}

/** The products' variants, whose stock sums to what insertProducts gave each product. */
async function insertVariants(tx: EntityManager, lo: number, hi: number) {
  const pid = sql`p.id`;
  await rows(
    tx,
    sql`INSERT INTO product_variants (product_id, sku, title, option_values, wholesale_price_cents,
        retail_price_cents, stock_quantity, position)
      SELECT p.id,
        CASE WHEN n = 1 THEN p.sku ELSE p.sku || '-' || v END,
        CASE WHEN n = 1 THEN 'Default' ELSE colour END,
        CASE WHEN n = 1 THEN '{}'::jsonb ELSE jsonb_build_object('Colour', colour) END,
        p.wholesale_price_cents, p.retail_price_cents,
        ${variantStock(pid, sql`v`)},
        v
      FROM products p
      CROSS JOIN LATERAL (SELECT ${variantCount(pid)} AS n) k
      CROSS JOIN LATERAL generate_series(1, k.n) v
      CROSS JOIN LATERAL (SELECT (${COLOURS}::text[])[1 + (${h(pid, 21)} + v) % ${COLOURS.length}] AS colour) c
      WHERE p.id BETWEEN ${lo} AND ${hi}`,
  );
}

/** What hangs off the variants and the products: the colour option, images and drawings. */
async function insertProductDetails(tx: EntityManager, lo: number, hi: number) {
  const pid = sql`p.id`;
  await rows(
    tx,
    sql`INSERT INTO product_options (product_id, name, "values", position)
      SELECT product_id, 'Colour', array_agg(option_values->>'Colour' ORDER BY position), 0
      FROM product_variants WHERE product_id BETWEEN ${lo} AND ${hi} AND option_values <> '{}'::jsonb
      GROUP BY product_id`,
  );
  await rows(
    tx,
    sql`INSERT INTO product_images (product_id, url, alt, position)
      SELECT p.id, 'https://images.stockless.example/products/' || p.id || '/' || i || '.jpg', p.name, i
      FROM products p CROSS JOIN LATERAL generate_series(1, 1 + ${h(pid, 40)} % 3) i
      WHERE p.id BETWEEN ${lo} AND ${hi} AND p.image_url IS NOT NULL`,
  );
  await rows(
    tx,
    sql`INSERT INTO product_drawings (product_id, url, title, position)
      SELECT p.id, 'https://images.stockless.example/drawings/' || p.id || '.pdf', 'Assembly drawing', 1
      FROM products p
      WHERE p.id BETWEEN ${lo} AND ${hi} AND p.width_cm IS NOT NULL AND ${h(pid, 41)} % 3 = 0`,
  );
}
