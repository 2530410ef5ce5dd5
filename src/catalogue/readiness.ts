import type { EntityManager } from '@mikro-orm/postgresql';
import { type RawBuilder, rows, sql } from '../db/sql.ts';
import { foldFacetCells } from './cells.ts';
import { CHANNELS, channelBit } from './channels.ts';

/** Products scored per transaction: each batch holds its product locks well under a second. */
export const READINESS_BATCH = 5_000;

/**
 * The nightly readiness pass: scores every product's completeness per channel, marks products ready
 * to list, and refreshes the recommendation score. Set-based (two statements per batch), in short
 * transactions over id ranges, so a 2M-product catalogue is never locked or held in one snapshot
 * while orders and stock writers run. A product's scores change together; the catalogue's change
 * batch by batch, which no partner-visible rule forbids (each product is ready or not on its own).
 * Products added during the pass, past the highest id it saw, are scored by the next one.
 *
 * Each channel's score is the share of its checks a product passes:
 * - storefront: name, a description of 40+ characters, an image, a price, a category;
 * - google: image, 80+ character description, brand, category, price, in stock;
 * - meta: image, description, brand, price;
 * - freight: weight and all three assembled dimensions.
 * A product scored 100% for a channel gets that channel's bit in `complete_channels`.
 */
export async function runReadinessPass(
  em: EntityManager,
  batch = READINESS_BATCH,
): Promise<{ products: number; changed: number }> {
  const [span] = await rows<{ lo: number | null; hi: number | null }>(
    em,
    sql`SELECT min(id) AS lo, max(id) AS hi FROM products`,
  );
  const total = { products: 0, changed: 0 };
  for (let lo = span?.lo ?? 1; span?.hi != null && lo <= span.hi; lo += batch) {
    const range = await em.transactional((tx) => scoreRange(tx, lo, lo + batch - 1));
    total.products += range.products;
    total.changed += range.changed;
  }

  // Nightly housekeeping: whatever facet deltas writers left unfolded go into the cells.
  await foldFacetCells(em);
  return total;
}

/** Each channel's score (0–100) of the product row `p`, as `(channel, score)` rows. */
export function channelScores(p: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`(VALUES
    ('storefront', (100 * (
      (length(${p}.name) > 0)::int + (length(${p}.description) >= 40)::int + (${p}.image_url IS NOT NULL)::int +
      (${p}.retail_price_cents > 0)::int + (${p}.category_id IS NOT NULL)::int) / 5)::smallint),
    ('google', (100 * (
      (${p}.image_url IS NOT NULL)::int + (length(${p}.description) >= 80)::int + (${p}.brand_id IS NOT NULL)::int +
      (${p}.category_id IS NOT NULL)::int + (${p}.retail_price_cents > 0)::int + (${p}.stock_quantity > 0)::int) / 6)::smallint),
    ('meta', (100 * (
      (${p}.image_url IS NOT NULL)::int + (length(${p}.description) > 0)::int + (${p}.brand_id IS NOT NULL)::int +
      (${p}.retail_price_cents > 0)::int) / 4)::smallint),
    ('freight', (100 * (
      (${p}.weight_oz IS NOT NULL)::int + (${p}.width_cm IS NOT NULL)::int + (${p}.depth_cm IS NOT NULL)::int +
      (${p}.height_cm IS NOT NULL)::int) / 4)::smallint)
  ) AS ch(channel, score)`;
}

/** The bit of `channel` (a text column) in `complete_channels`. */
function channelMask(channel: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`CASE ${channel} ${sql.join(
    CHANNELS.map((name) => sql`WHEN ${sql.lit(name)} THEN ${sql.lit(channelBit(name))}`),
    sql` `,
  )} ELSE 0 END`;
}

/**
 * The product columns the pass sets, from the product row `p`, its storefront score and the mask
 * of its complete channels: in the pass's update, and in a bulk load that scores as it inserts.
 */
export function readinessColumns(
  p: RawBuilder<unknown>,
  score: RawBuilder<unknown>,
  mask: RawBuilder<unknown>,
) {
  return {
    readiness_score: score,
    ready_to_list: sql`(${score} = 100 AND ${p}.active AND ${p}.stock_quantity > 0)`,
    complete_channels: sql`(${mask})::smallint`,
    recommended_score: sql`(${score} * 10 + LEAST(${p}.stock_quantity, 100)
      + LEAST(100, GREATEST(0, (${p}.retail_price_cents - ${p}.wholesale_price_cents) * 100 / GREATEST(${p}.retail_price_cents, 1)))
      )::integer`,
  };
}

/**
 * The storefront score and the complete-channels mask of `p`, computed once per row: join it
 * `CROSS JOIN LATERAL` and pass its columns to readinessColumns (a bulk load scoring as it inserts).
 */
export function channelSummary(p: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`(SELECT max(ch.score) FILTER (WHERE ch.channel = 'storefront') AS storefront,
      COALESCE(sum(${channelMask(sql`ch.channel`)}) FILTER (WHERE ch.score = 100), 0) AS mask
    FROM ${channelScores(p)})`;
}

/** Records the per-channel scores of products `lo`–`hi` (only those that changed are written). */
export async function recordCompleteness(tx: EntityManager, lo: number, hi: number): Promise<void> {
  await rows(
    tx,
    sql`INSERT INTO product_completeness (product_id, channel, score, computed_at)
      SELECT p.id, ch.channel, ch.score, now()
      FROM products p CROSS JOIN LATERAL ${channelScores(sql`p`)}
      WHERE p.id BETWEEN ${lo} AND ${hi}
      ON CONFLICT (product_id, channel) DO UPDATE SET score = EXCLUDED.score, computed_at = EXCLUDED.computed_at
      WHERE product_completeness.score IS DISTINCT FROM EXCLUDED.score`,
  );
}

/**
 * Scores products `lo`–`hi` (one transaction; a catalogue change rescores its product with it).
 * Only products never scored or whose scores changed
 * are written: a nightly pass over an unchanged catalogue rewrites nothing (each rewrite is a new
 * row version in every index), and `readiness_checked_at` is when the scores last changed.
 */
export async function scoreRange(tx: EntityManager, lo: number, hi: number) {
  await recordCompleteness(tx, lo, hi);
  const columns = readinessColumns(sql`p`, sql`pc.score`, sql`COALESCE(m.mask, 0)`);
  const [row] = await rows<{ products: number; changed: number }>(
    tx,
    sql`WITH masks AS (
        SELECT product_id, sum(${channelMask(sql`channel`)}) AS mask
        FROM product_completeness WHERE score = 100 AND product_id BETWEEN ${lo} AND ${hi}
        GROUP BY product_id
      ), scored AS (
        SELECT p.id, ${columns.readiness_score} AS score, ${columns.ready_to_list} AS ready,
          ${columns.complete_channels} AS complete_channels, ${columns.recommended_score} AS recommended
        FROM products p JOIN product_completeness pc ON pc.product_id = p.id AND pc.channel = 'storefront'
        LEFT JOIN masks m ON m.product_id = p.id
        WHERE p.id BETWEEN ${lo} AND ${hi}
      ), changed AS (
        UPDATE products p SET readiness_score = s.score, ready_to_list = s.ready,
          recommended_score = s.recommended, complete_channels = s.complete_channels, readiness_checked_at = now()
        FROM scored s WHERE p.id = s.id
          AND (p.readiness_checked_at IS NULL
            OR (p.readiness_score, p.ready_to_list, p.recommended_score, p.complete_channels)
              IS DISTINCT FROM (s.score, s.ready, s.recommended, s.complete_channels))
        RETURNING 1
      ) SELECT (SELECT count(*) FROM scored)::integer AS products, (SELECT count(*) FROM changed)::integer AS changed`,
  );
  return { products: row?.products ?? 0, changed: row?.changed ?? 0 };
}
