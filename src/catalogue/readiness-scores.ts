import type { EntityManager } from '@mikro-orm/postgresql';
import type { Selectable } from 'kysely';
import { type DB, db } from '../db/kysely.ts';
import { first, type RawBuilder, run, sql } from '../db/sql.ts';
import { CHANNELS, channelBit } from './channels.ts';

type Product = Selectable<DB['products']>;
type Completeness = Selectable<DB['product_completeness']>;
type ReadinessColumn = 'readiness_score' | 'ready_to_list' | 'complete_channels' | 'recommended_score';

/** Products scored per transaction: each batch holds its product locks well under a second. */
export const READINESS_BATCH = 5_000;

/**
 * Scores every product, set-based (two statements per batch), in short transactions over id ranges,
 * so a 2M-product catalogue is never locked or held in one snapshot while orders and stock writers
 * run. A product's scores change together; the catalogue's change batch by batch, which no
 * partner-visible rule forbids (each product is ready or not on its own). Products added during the
 * pass, past the highest id it saw, are scored by the next one.
 */
export async function scoreCatalogue(
  em: EntityManager,
  batch = READINESS_BATCH,
): Promise<{ products: number; changed: number }> {
  // min and max of no rows are NULL: an empty catalogue has nothing to score.
  const span = await first(
    db(em)
      .selectFrom('products')
      .select((eb) => [eb.fn.min<number | null>('id').as('lo'), eb.fn.max<number | null>('id').as('hi')]),
  );
  const total = { products: 0, changed: 0 };
  for (let lo = span?.lo ?? 1; span?.hi != null && lo <= span.hi; lo += batch) {
    const range = await em.transactional((tx) => scoreRange(tx, lo, lo + batch - 1));
    total.products += range.products;
    total.changed += range.changed;
  }
  return total;
}

/**
 * Each channel's score (0–100) of the product row `p`, as `ch(channel, score)` rows. A VALUES list
 * of expressions of the row, which kysely cannot build: raw SQL, typed as the scores it records.
 *
 * Each channel's score is the share of its checks a product passes:
 * - storefront: name, a description of 40+ characters, an image, a price, a category;
 * - google: image, 80+ character description, brand, category, price, in stock;
 * - meta: image, description, brand, price;
 * - freight: weight and all three assembled dimensions.
 * A product scored 100% for a channel gets that channel's bit in `complete_channels`.
 */
export function channelScores(p: RawBuilder<unknown>) {
  return sql<Pick<Completeness, 'channel' | 'score'>>`(VALUES
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
  )`.as<'ch'>(sql`ch(channel, score)`);
}

/** The bit of `channel` (a text column) in `complete_channels`. */
function channelMask(channel: RawBuilder<unknown>) {
  return sql<Product['complete_channels']>`CASE ${channel} ${sql.join(
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
): { [C in ReadinessColumn]: RawBuilder<Product[C]> } {
  return {
    readiness_score: sql`${score}`,
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
  await run(
    db(tx)
      .insertInto('product_completeness')
      .columns(['product_id', 'channel', 'score', 'computed_at'])
      .expression((eb) =>
        eb
          .selectFrom('products as p')
          .crossJoinLateral(channelScores(sql`p`))
          .select(['p.id', 'ch.channel', 'ch.score', sql`now()`.as('computed_at')])
          .where((eb) => eb.between('p.id', lo, hi)),
      )
      .onConflict((oc) =>
        oc
          .columns(['product_id', 'channel'])
          .doUpdateSet((eb) => ({
            score: eb.ref('excluded.score'),
            computed_at: eb.ref('excluded.computed_at'),
          }))
          .whereRef('product_completeness.score', 'is distinct from', 'excluded.score'),
      ),
  );
}

/**
 * Products `lo`–`hi` with the columns the pass sets (`scored`), each product's complete-channel
 * mask summed from its channels' scores first (`masks`).
 */
function scoredRange(tx: EntityManager, lo: number, hi: number) {
  const columns = readinessColumns(sql`p`, sql`pc.score`, sql`COALESCE(m.mask, 0)`);
  return db(tx)
    .with('masks', (q) =>
      q
        .selectFrom('product_completeness')
        .select((eb) => ['product_id', eb.fn.sum(channelMask(sql`channel`)).as('mask')])
        .where('score', '=', sql.lit(100))
        .where((eb) => eb.between('product_id', lo, hi))
        .groupBy('product_id'),
    )
    .with('scored', (q) =>
      q
        .selectFrom('products as p')
        .innerJoin('product_completeness as pc', (join) =>
          join.onRef('pc.product_id', '=', 'p.id').on('pc.channel', '=', sql.lit('storefront')),
        )
        .leftJoin('masks as m', 'm.product_id', 'p.id')
        .select([
          'p.id',
          columns.readiness_score.as('score'),
          columns.ready_to_list.as('ready'),
          columns.complete_channels.as('complete_channels'),
          columns.recommended_score.as('recommended'),
        ])
        .where((eb) => eb.between('p.id', lo, hi)),
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
  const row = await first(
    scoredRange(tx, lo, hi)
      .with('changed', (q) =>
        q
          .updateTable('products as p')
          .from('scored as s')
          .set((eb) => ({
            readiness_score: eb.ref('s.score'),
            ready_to_list: eb.ref('s.ready'),
            recommended_score: eb.ref('s.recommended'),
            complete_channels: eb.ref('s.complete_channels'),
            readiness_checked_at: sql`now()`,
          }))
          .whereRef('p.id', '=', 's.id')
          .where((eb) =>
            eb.or([
              eb('p.readiness_checked_at', 'is', null),
              eb(
                eb.tuple(
                  eb.ref('p.readiness_score'),
                  eb.ref('p.ready_to_list'),
                  eb.ref('p.recommended_score'),
                  eb.ref('p.complete_channels'),
                ),
                'is distinct from',
                eb.tuple(
                  eb.ref('s.score'),
                  eb.ref('s.ready'),
                  eb.ref('s.recommended'),
                  eb.ref('s.complete_channels'),
                ),
              ),
            ]),
          )
          .returning((eb) => eb.lit(1).as('one')),
      )
      .selectNoFrom((eb) => [
        eb.cast<number>(eb.selectFrom('scored').select(eb.fn.countAll().as('n')), 'integer').as('products'),
        eb.cast<number>(eb.selectFrom('changed').select(eb.fn.countAll().as('n')), 'integer').as('changed'),
      ]),
  );
  return { products: row?.products ?? 0, changed: row?.changed ?? 0 };
}
