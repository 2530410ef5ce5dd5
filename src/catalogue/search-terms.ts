import type { EntityManager } from '@mikro-orm/postgresql';
import { type RawBuilder, rows, sql } from '../db/sql.ts';

/** The static quality order behind a search: the recommended score, then the newest id. */
export const SEARCH_STATIC_ORDER = sql`p.recommended_score DESC, p.id DESC`;

/**
 * websearch_to_tsquery's OR (the word `or`) and negation (a leading `-`): a term with either may
 * match products lacking any one of its words.
 */
const OPERATOR = /(^|[^\p{L}\p{N}])(-|or([^\p{L}\p{N}]|$))/iu;

/** Counting a word's entries stops here: past it a word is common, and the choice no longer matters. */
const RARITY_CAP = 2_000;

/**
 * The lexeme every full-text match of `term` holds, the rarest of its words in the catalogue: its
 * entries of product_search_terms (Migration20261128030000_search_terms) are then a superset of the
 * matches, in the static order. None for a term with an OR or a negation, or only stop words.
 * A lexeme is taken only if the query itself names it, so a parse where the two differ cannot
 * narrow the matches.
 */
export async function drivingLexeme(em: EntityManager, term: string): Promise<string | undefined> {
  if (OPERATOR.test(term)) return undefined;
  const [row] = await rows<{ lexeme: string }>(
    em,
    sql`SELECT t.lexeme
      FROM unnest(tsvector_to_array(to_tsvector('english', ${term}))) AS t(lexeme)
      WHERE strpos(querytree(websearch_to_tsquery('english', ${term})),
        '''' || replace(t.lexeme, '''', '''''') || '''') > 0
      ORDER BY (SELECT count(*) FROM (SELECT 1 FROM product_search_terms s
        WHERE s.lexeme = t.lexeme LIMIT ${RARITY_CAP}) c), t.lexeme
      LIMIT 1`,
  );
  return row?.lexeme;
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
  /** The lexeme every match holds (drivingLexeme), if any. */
  lexeme?: string | undefined;
}

/**
 * A statement reading `source` in the static order. Through the entries of `lexeme` when the matches
 * all hold one: an index range read backward, each entry then looking up its product, so a page of
 * matches costs what it returns. The lookup is a LATERAL subquery fenced with OFFSET 0, leaving one
 * plan: with cleared statistics PostgreSQL otherwise hashed the text index's bitmap of products and
 * sorted every entry of the word (`oak`: past the 2 s budget at 2M). Without a lexeme, the products
 * themselves in that order.
 */
export function inStaticOrder<T = unknown>(read: StaticOrderRead): RawBuilder<T> {
  const page = sql`LIMIT ${String(read.limit)} OFFSET ${String(read.offset ?? 0)}`;
  if (read.lexeme === undefined) {
    return sql<T>`SELECT ${read.columns}, p.recommended_score AS static FROM ${read.source}
      WHERE ${read.where} ORDER BY ${SEARCH_STATIC_ORDER} ${page}`;
  }
  return sql<T>`SELECT m.*, s.score AS static
    FROM (SELECT score, product_id FROM product_search_terms WHERE lexeme = ${read.lexeme}) s
    CROSS JOIN LATERAL (SELECT ${read.columns} FROM ${read.source}
      WHERE p.id = s.product_id AND ${read.where} OFFSET 0) m
    ORDER BY s.score DESC, s.product_id DESC ${page}`;
}
