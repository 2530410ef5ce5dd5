-- Search terms rewritten for a product whose text or score changed; its WHEN leaves out the updates that change
-- neither (stock, prices, readiness: most of them) at no cost to them.

CREATE OR REPLACE FUNCTION public.product_search_terms_updated()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  DELETE FROM product_search_terms
  WHERE lexeme = ANY(tsvector_to_array(OLD.search_vector)) AND score = OLD.recommended_score
    AND product_id = OLD.id;
  INSERT INTO product_search_terms (lexeme, score, product_id)
  SELECT t.lexeme, NEW.recommended_score, NEW.id FROM unnest(tsvector_to_array(NEW.search_vector)) AS t(lexeme);
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER products_search_terms_upd AFTER UPDATE ON public.products FOR EACH ROW WHEN (((old.recommended_score <> new.recommended_score) OR (old.search_vector <> new.search_vector))) EXECUTE FUNCTION product_search_terms_updated();
