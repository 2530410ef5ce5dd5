import type { EntityManager } from '@mikro-orm/postgresql';
import { type RawBuilder, rows, sql } from '../db/sql.ts';

/** The static quality order behind a search: the recommended score, then the newest id. */
export const SEARCH_STATIC_ORDER = sql`p.recommended_score DESC, p.id DESC`;

/**
 * websearch_to_tsquery's OR (the word `or`) and negation (a leading `-`): a term with either may
 * match products lacking any one of its words.
 */
const OPERATOR = /(^|[^\p{L}\p{N}])(-|or([^\p{L}\p{N}]|$))/iu;

/**
 * Counting a word's entries stops here: past it a word is common, and common words are told apart
 * by the table's statistics and by sampling (drivingLexemes). They are counted in the key's order so
 * the count is a range of the key, never a bitmap of every entry of a common word (cleared
 * statistics chose one: 120 ms at 2M).
 */
const RARITY_CAP = 2_000;

/** The first entries of a word's walk sampled for how many hold the term's second word too. */
const DENSITY_SAMPLE = 200;
/**
 * The share of the sample below which a two-word walk is left for the text index: sparser pairs
 * walk thousands of entries to find a page (`walnut chair`: 40,000 probes, 160 ms at 2M), where the
 * text index intersects their posting lists and reads only the few products holding both (45 ms).
 */
const MIN_DENSITY = 0.2;

/** The entry of `lexeme` for the product of the walked entry `s` (at its score, so one key probe). */
const sameEntry = (lexeme: string) => sql`product_search_terms t
  WHERE t.lexeme = ${lexeme} AND t.score = s.score AND t.product_id = s.product_id`;

/**
 * The lexemes every full-text match of `term` holds, the rarest of its words in the catalogue first:
 * the entries of the first (product_search_terms, Migration20261128030000_search_terms) are a
 * superset of the matches in the static order, and each other's narrow them by key before any
 * product is read (a third word tested on the product instead read every product holding the first
 * two: `chandelier candle holder`, 26,000 products for none, 1 s at 2M). None for a term with an OR
 * or a negation, or only stop words, and none for two common words that seldom meet (MIN_DENSITY):
 * the text index answers those better. A lexeme is taken only if the query itself names it, so a
 * parse where the two differ cannot narrow the matches.
 */
export async function drivingLexemes(em: EntityManager, term: string): Promise<string[] | undefined> {
  if (OPERATOR.test(term)) return undefined;
  // Words past RARITY_CAP are told apart by the table's own statistics (its most common lexemes and
  // their shares, when analysed): capped counts alone picked `hand` to drive `hand-thrown`.
  const found = await rows<{ lexeme: string; n: number }>(
    em,
    sql`WITH common AS (SELECT most_common_vals::text::text[] AS vals, most_common_freqs AS freqs
        FROM pg_stats WHERE schemaname = current_schema() AND tablename = 'product_search_terms'
          AND attname = 'lexeme')
      SELECT t.lexeme, (SELECT count(*)::integer FROM (SELECT 1 FROM product_search_terms s
        WHERE s.lexeme = t.lexeme ORDER BY s.score, s.product_id LIMIT ${RARITY_CAP}) c) AS n,
        COALESCE((SELECT c.freqs[array_position(c.vals, t.lexeme)] FROM common c), 0) AS share
      FROM unnest(tsvector_to_array(to_tsvector('english', ${term}))) AS t(lexeme)
      WHERE strpos(querytree(websearch_to_tsquery('english', ${term})),
        '''' || replace(t.lexeme, '''', '''''') || '''') > 0
      ORDER BY 2, 3, 1`,
  );
  const [first, second, ...rest] = found;
  if (!first) return undefined;
  if (!second || first.n < RARITY_CAP) return found.map((r) => r.lexeme);
  // Both words common: a sample of each one's first entries probed for the other tells which is the
  // rarer (a larger share of it holds the other) and whether they meet often enough to walk, without
  // statistics (cleared, the ranking above ties them by name). With more words, the sample of the
  // walked one must hold them all as often: three words of 26,000 products each that never meet walked
  // every entry of the first to find nothing (300 ms at 2M), where the text index intersects them.
  const density = async (walked: string, probed: string[]) => {
    const holds = probed.map((other) => sql`EXISTS (SELECT 1 FROM ${sameEntry(other)})`);
    const [sample] = await rows<{ n: number; both: number }>(
      em,
      sql`SELECT count(*)::integer AS n, count(*) FILTER (WHERE ${sql.join(holds, sql` AND `)})::integer AS both
        FROM (SELECT score, product_id FROM product_search_terms s WHERE s.lexeme = ${walked}
          ORDER BY s.score DESC, s.product_id DESC LIMIT ${DENSITY_SAMPLE}) s`,
    );
    return sample && sample.n > 0 ? sample.both / sample.n : 0;
  };
  const others = rest.map((r) => r.lexeme);
  const [forward, backward] = await Promise.all([
    density(first.lexeme, [second.lexeme, ...others]),
    density(second.lexeme, [first.lexeme, ...others]),
  ]);
  if (Math.max(forward, backward) < MIN_DENSITY) return undefined;
  const pair = forward >= backward ? [first.lexeme, second.lexeme] : [second.lexeme, first.lexeme];
  return [...pair, ...others];
}

/** What a statement reads in the static order: its columns, conditions and page. */
export interface StaticOrderRead {
  /** A FROM naming products `p` (and the store's listings `l` when a condition reads them). */
  source: RawBuilder<unknown>;
  /** The select list, over `p` and `l`; `static` (the score) is added. */
  columns: RawBuilder<unknown>;
  where: RawBuilder<unknown>;
  limit: number | bigint;
  offset?: number | bigint;
  /** The lexemes every match holds (drivingLexemes), if any. */
  lexemes?: string[] | undefined;
}

/**
 * A statement reading `source` in the static order. Through the entries of a lexeme when the
 * matches all hold one (those of a second probed by key when they hold two): an index range read
 * backward, each entry then looking up its product, so a page of matches costs what it returns. The
 * lookup is a LATERAL subquery fenced with OFFSET 0, leaving one plan: with cleared statistics
 * PostgreSQL otherwise hashed the text index's bitmap of products and sorted every entry of the word
 * (`oak`: past the 2 s budget at 2M). Without a lexeme, the products themselves in that order.
 */
export function inStaticOrder<T = unknown>(read: StaticOrderRead): RawBuilder<T> {
  const page = sql`LIMIT ${String(read.limit)} OFFSET ${String(read.offset ?? 0)}`;
  const [lexeme, ...others] = read.lexemes ?? [];
  if (lexeme === undefined) {
    return sql<T>`SELECT ${read.columns}, p.recommended_score AS static FROM ${read.source}
      WHERE ${read.where} ORDER BY ${SEARCH_STATIC_ORDER} ${page}`;
  }
  // A product holding another lexeme has its entry at the same score: one key probe per entry of the
  // first and further lexeme, no product read for those without them (a two-word search read every
  // product of its rarer word: 250 ms at 2M). Scalar subqueries, so they stay filters on the walk: as EXISTS it
  // became a join PostgreSQL could run after the product lookup (3.4 s with cleared statistics), and
  // fenced apart it lost the page's LIMIT and hashed both words' entries (1.5 s).
  const probes = others.map((other) => sql`(SELECT true FROM ${sameEntry(other)} LIMIT 1)`);
  const both = probes.length ? sql.join(probes, sql` AND `) : sql`true`;
  return sql<T>`SELECT m.*, s.score AS static
    FROM (SELECT score, product_id FROM product_search_terms s WHERE s.lexeme = ${lexeme} AND ${both}) s
    CROSS JOIN LATERAL (SELECT ${read.columns} FROM ${read.source}
      WHERE p.id = s.product_id AND ${read.where} OFFSET 0) m
    ORDER BY s.score DESC, s.product_id DESC ${page}`;
}
