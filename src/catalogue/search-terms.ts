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
 * Counting a word's entries stops here: past it a word is common, and the choice no longer matters.
 * They are counted in the key's order so the count is a range of the key, never a bitmap of every
 * entry of a common word (cleared statistics chose one: 120 ms at 2M).
 */
const RARITY_CAP = 2_000;

/**
 * The lexemes every full-text match of `term` holds, the rarest of its words in the catalogue first
 * (at most two): the entries of the first (product_search_terms, Migration20261128030000_search_terms)
 * are a superset of the matches in the static order, and the second's narrow them by key before any
 * product is read. None for a term with an OR or a negation, or only stop words. A lexeme is taken
 * only if the query itself names it, so a parse where the two differ cannot narrow the matches.
 */
export async function drivingLexemes(em: EntityManager, term: string): Promise<string[] | undefined> {
  if (OPERATOR.test(term)) return undefined;
  const found = await rows<{ lexeme: string }>(
    em,
    sql`SELECT t.lexeme
      FROM unnest(tsvector_to_array(to_tsvector('english', ${term}))) AS t(lexeme)
      WHERE strpos(querytree(websearch_to_tsquery('english', ${term})),
        '''' || replace(t.lexeme, '''', '''''') || '''') > 0
      ORDER BY (SELECT count(*) FROM (SELECT 1 FROM product_search_terms s
        WHERE s.lexeme = t.lexeme ORDER BY s.score, s.product_id LIMIT ${RARITY_CAP}) c), t.lexeme
      LIMIT 2`,
  );
  return found.length ? found.map((r) => r.lexeme) : undefined;
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
  const [lexeme, second] = read.lexemes ?? [];
  if (lexeme === undefined) {
    return sql<T>`SELECT ${read.columns}, p.recommended_score AS static FROM ${read.source}
      WHERE ${read.where} ORDER BY ${SEARCH_STATIC_ORDER} ${page}`;
  }
  // A product holding the second lexeme has its entry at the same score: one key probe per entry of
  // the first, no product read for those without it (a two-word search read every product of its
  // rarer word: 250 ms at 2M). A scalar subquery, so it stays a filter on the walk: as EXISTS it
  // became a join PostgreSQL could run after the product lookup (3.4 s with cleared statistics), and
  // fenced apart it lost the page's LIMIT and hashed both words' entries (1.5 s).
  const both =
    second === undefined
      ? sql`true`
      : sql`(SELECT true FROM product_search_terms t
          WHERE t.lexeme = ${second} AND t.score = s.score AND t.product_id = s.product_id LIMIT 1)`;
  return sql<T>`SELECT m.*, s.score AS static
    FROM (SELECT score, product_id FROM product_search_terms s WHERE s.lexeme = ${lexeme} AND ${both}) s
    CROSS JOIN LATERAL (SELECT ${read.columns} FROM ${read.source}
      WHERE p.id = s.product_id AND ${read.where} OFFSET 0) m
    ORDER BY s.score DESC, s.product_id DESC ${page}`;
}
