-- Search terms: a truncated products table leaves none.

CREATE OR REPLACE FUNCTION public.product_search_terms_truncated()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  TRUNCATE product_search_terms;
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER products_search_terms_trunc AFTER TRUNCATE ON public.products FOR EACH STATEMENT EXECUTE FUNCTION product_search_terms_truncated();
