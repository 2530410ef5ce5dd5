-- Search terms: a deleted product's entries, found by key, never by reading the table.
-- Story: Migration20261128030000_search_terms.

CREATE OR REPLACE FUNCTION public.product_search_terms_deleted()
 RETURNS trigger
 LANGUAGE plpgsql
 SET enable_seqscan TO 'off'
AS $function$
BEGIN
  DELETE FROM product_search_terms s
  USING old_rows o, unnest(tsvector_to_array(o.search_vector)) AS t(lexeme)
  WHERE s.lexeme = t.lexeme AND s.score = o.recommended_score AND s.product_id = o.id;
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER products_search_terms_del AFTER DELETE ON public.products REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION product_search_terms_deleted();
