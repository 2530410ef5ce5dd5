-- Search terms: an inserted product's lexemes in the static order (score, then id), so a term's matches are one
-- range of the key. Story: Migration20261128030000_search_terms.

CREATE OR REPLACE FUNCTION public.product_search_terms_inserted()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  INSERT INTO product_search_terms (lexeme, score, product_id)
  SELECT t.lexeme, n.recommended_score, n.id
  FROM new_rows n, unnest(tsvector_to_array(n.search_vector)) AS t(lexeme);
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER products_search_terms_ins AFTER INSERT ON public.products REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION product_search_terms_inserted();
