-- A product's owner store is its supplier's, copied on insert and on a change of supplier, so a product's visibility
-- is a column test, not a join.

CREATE OR REPLACE FUNCTION public.products_copy_owner()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  SELECT owner_store_id INTO NEW.owner_store_id FROM suppliers WHERE id = NEW.supplier_id;
  RETURN NEW;
END $function$;

CREATE OR REPLACE TRIGGER products_copy_owner BEFORE INSERT OR UPDATE OF supplier_id ON public.products FOR EACH ROW EXECUTE FUNCTION products_copy_owner();
