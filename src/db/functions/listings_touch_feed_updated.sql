-- Any listing changed puts its product at the head of that store's inventory feed, except a change of its shipping
-- gaps alone (the feed carries no shipping data). Story: Migration20261129000000_listing_shipping_gaps.

CREATE OR REPLACE FUNCTION public.listings_touch_feed_updated()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  INSERT INTO inventory_feed (store_id, product_id)
  SELECT DISTINCT n.store_id, n.product_id FROM changed n JOIN before o ON o.id = n.id
  WHERE o.shipping_gaps = n.shipping_gaps
    OR to_jsonb(o) - 'shipping_gaps' IS DISTINCT FROM to_jsonb(n) - 'shipping_gaps'
  ORDER BY 1, 2
  ON CONFLICT (store_id, product_id) DO UPDATE SET xid = pg_current_xact_id(), seq = nextval('inventory_feed_seq');
  RETURN NULL;
END $function$;

CREATE OR REPLACE TRIGGER listings_feed_upd AFTER UPDATE ON public.listings REFERENCING OLD TABLE AS before NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION listings_touch_feed_updated();
