import { Migration } from '@mikro-orm/migrations';

/**
 * A search ranks the first SEARCH_RANKED matches of its term in the static order (recommended score,
 * then id: docs/decisions.md, "Search at scale"). Neither index reaches them in bounded reads: the
 * text index yields every match unordered (a word in 1% of 2M products: 20,000 heap rows to sort),
 * and walking the score index tests ~100,000 heap rows to find 1,000 of that word (730 ms at 2M).
 * Cutting the walk into score bands and intersecting bitmaps was tried: 90–390 ms, the band's bitmap
 * going lossy.
 *
 * This table keeps each product's lexemes in that order: a term's matches in the static order are
 * one range of its primary key, read index-only, and a page of them costs what it returns. Kept by
 * statement triggers on products (a bulk load's batch is one insert), rewritten for a product whose
 * text or score changed. The score is a copy of `recommended_score`: a walk's order must be the
 * products' own.
 */
export class Migration20261128030000_search_terms extends Migration {
  override name = 'Migration20261128030000_search_terms';

  override up(): void {
    this.addSql(`
CREATE TABLE product_search_terms (
  lexeme text NOT NULL,
  score integer NOT NULL,
  product_id integer NOT NULL
);

INSERT INTO product_search_terms (lexeme, score, product_id)
SELECT t.lexeme, p.recommended_score, p.id
FROM products p, unnest(tsvector_to_array(p.search_vector)) AS t(lexeme);

-- Built after the load: sorting once is cheaper than 14 random insertions a product.
ALTER TABLE product_search_terms ADD PRIMARY KEY (lexeme, score, product_id);

CREATE FUNCTION product_search_terms_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO product_search_terms (lexeme, score, product_id)
  SELECT t.lexeme, n.recommended_score, n.id
  FROM new_rows n, unnest(tsvector_to_array(n.search_vector)) AS t(lexeme);
  RETURN NULL;
END $$;

-- A row trigger whose WHEN leaves out the updates that change neither text nor score (stock, prices,
-- readiness: most of them), at no cost to them. As a statement trigger the same test joined every
-- updated row's old and new version: +750 ms on a stock update of 1,600 products.
CREATE FUNCTION product_search_terms_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM product_search_terms
  WHERE lexeme = ANY(tsvector_to_array(OLD.search_vector)) AND score = OLD.recommended_score
    AND product_id = OLD.id;
  INSERT INTO product_search_terms (lexeme, score, product_id)
  SELECT t.lexeme, NEW.recommended_score, NEW.id FROM unnest(tsvector_to_array(NEW.search_vector)) AS t(lexeme);
  RETURN NULL;
END $$;

-- Deleted products' entries are found by key, never by reading the table.
CREATE FUNCTION product_search_terms_deleted() RETURNS trigger LANGUAGE plpgsql
SET enable_seqscan = off AS $$
BEGIN
  DELETE FROM product_search_terms s
  USING old_rows o, unnest(tsvector_to_array(o.search_vector)) AS t(lexeme)
  WHERE s.lexeme = t.lexeme AND s.score = o.recommended_score AND s.product_id = o.id;
  RETURN NULL;
END $$;

CREATE FUNCTION product_search_terms_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE product_search_terms;
  RETURN NULL;
END $$;

CREATE TRIGGER products_search_terms_ins AFTER INSERT ON products
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_search_terms_inserted();
CREATE TRIGGER products_search_terms_upd AFTER UPDATE ON products FOR EACH ROW
  WHEN (OLD.recommended_score <> NEW.recommended_score OR OLD.search_vector <> NEW.search_vector)
  EXECUTE FUNCTION product_search_terms_updated();
CREATE TRIGGER products_search_terms_del AFTER DELETE ON products
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION product_search_terms_deleted();
CREATE TRIGGER products_search_terms_trunc AFTER TRUNCATE ON products
  FOR EACH STATEMENT EXECUTE FUNCTION product_search_terms_truncated();
`);
  }
}
