-- Any listing added puts its product at the head of that store's inventory feed, in the same transaction,
-- whatever wrote it. Story: Migration20261122040000_inventory_feed.

CREATE OR REPLACE FUNCTION public.listings_touch_feed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  INSERT INTO inventory_feed (store_id, product_id)
  SELECT DISTINCT store_id, product_id FROM changed ORDER BY store_id, product_id
  ON CONFLICT (store_id, product_id) DO UPDATE SET xid = pg_current_xact_id(), seq = nextval('inventory_feed_seq');
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER listings_feed_ins AFTER INSERT ON public.listings REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION listings_touch_feed();
