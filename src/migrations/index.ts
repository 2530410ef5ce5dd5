import { Migration20261122000000_foundation } from './Migration20261122000000_foundation.ts';
import { Migration20261122010000_listings_events } from './Migration20261122010000_listings_events.ts';
import { Migration20261122020000_orders } from './Migration20261122020000_orders.ts';
import { Migration20261122030000_stock_deltas } from './Migration20261122030000_stock_deltas.ts';
import { Migration20261122040000_inventory_feed } from './Migration20261122040000_inventory_feed.ts';
import { Migration20261122050000_external_orders } from './Migration20261122050000_external_orders.ts';
import { Migration20261122060000_webhooks } from './Migration20261122060000_webhooks.ts';
import { Migration20261122070000_oauth } from './Migration20261122070000_oauth.ts';
import { Migration20261122075000_keyed_jobs } from './Migration20261122075000_keyed_jobs.ts';
import { Migration20261122080000_facet_cells } from './Migration20261122080000_facet_cells.ts';
import { Migration20261122090000_lean_webhook_log } from './Migration20261122090000_lean_webhook_log.ts';
import { Migration20261125000000_gcra_limits } from './Migration20261125000000_gcra_limits.ts';
import { Migration20261125010000_margin_index } from './Migration20261125010000_margin_index.ts';
import { Migration20261125020000_deltas_vacuum } from './Migration20261125020000_deltas_vacuum.ts';
import { Migration20261125030000_covering_sort_indexes } from './Migration20261125030000_covering_sort_indexes.ts';
import { Migration20261125040000_store_cells } from './Migration20261125040000_store_cells.ts';
import { Migration20261125050000_unlogged_rate_limits } from './Migration20261125050000_unlogged_rate_limits.ts';
import { Migration20261125060000_bulk_load_stock } from './Migration20261125060000_bulk_load_stock.ts';
import { Migration20261125070000_orders_sort_indexes } from './Migration20261125070000_orders_sort_indexes.ts';
import { Migration20261125080000_covering_cells } from './Migration20261125080000_covering_cells.ts';
import { Migration20261125090000_bulk_load_folds } from './Migration20261125090000_bulk_load_folds.ts';
import { Migration20261125100000_listing_earn } from './Migration20261125100000_listing_earn.ts';
import { Migration20261125110000_store_cells_empty } from './Migration20261125110000_store_cells_empty.ts';
import { Migration20261125120000_catalogue_maintenance } from './Migration20261125120000_catalogue_maintenance.ts';
import { Migration20261125130000_delivery_claims } from './Migration20261125130000_delivery_claims.ts';
import { Migration20261125140000_subscription_holds } from './Migration20261125140000_subscription_holds.ts';
import { Migration20261125190000_idempotency_keys } from './Migration20261125190000_idempotency_keys.ts';
import { Migration20261125200000_event_log } from './Migration20261125200000_event_log.ts';
import { Migration20261125210000_test_mode } from './Migration20261125210000_test_mode.ts';
import { Migration20261125215000_idempotency_claim_token } from './Migration20261125215000_idempotency_claim_token.ts';
import { Migration20261128000000_idempotency_in_transaction } from './Migration20261128000000_idempotency_in_transaction.ts';
import { Migration20261128010000_event_log_time_bounds } from './Migration20261128010000_event_log_time_bounds.ts';
import { Migration20261128020000_raw_category_cover } from './Migration20261128020000_raw_category_cover.ts';
import { Migration20261128030000_search_terms } from './Migration20261128030000_search_terms.ts';
import { Migration20261128040000_taxonomy_covers } from './Migration20261128040000_taxonomy_covers.ts';
import { Migration20261128050000_inventory_fanout_pending } from './Migration20261128050000_inventory_fanout_pending.ts';
import { Migration20261128060000_stock_total_by_fanout } from './Migration20261128060000_stock_total_by_fanout.ts';
import { Migration20261128070000_inventory_fanout_versions } from './Migration20261128070000_inventory_fanout_versions.ts';
import { Migration20261128080000_listing_customisation_indexes } from './Migration20261128080000_listing_customisation_indexes.ts';
import { Migration20261128090000_order_counts } from './Migration20261128090000_order_counts.ts';
import { Migration20261128100000_orders_mode_sort_indexes } from './Migration20261128100000_orders_mode_sort_indexes.ts';
import { Migration20261128110000_sort_key_covers } from './Migration20261128110000_sort_key_covers.ts';
import { Migration20261128120000_price_slices } from './Migration20261128120000_price_slices.ts';
import { Migration20261129000000_listing_shipping_gaps } from './Migration20261129000000_listing_shipping_gaps.ts';
import { Migration20261129010000_price_slice_bounds } from './Migration20261129010000_price_slice_bounds.ts';
import { Migration20261129020000_variant_previous_price } from './Migration20261129020000_variant_previous_price.ts';
import { Migration20261129031000_schema_functions } from './Migration20261129031000_schema_functions.ts';
import { Migration20261129040000_exports } from './Migration20261129040000_exports.ts';
import { Migration20261129140000_request_log } from './Migration20261129140000_request_log.ts';
import { Migration20261129150000_credential_write_marks } from './Migration20261129150000_credential_write_marks.ts';
import { Migration20261129150000_trace_context } from './Migration20261129150000_trace_context.ts';
import { Migration20261129160000_request_log_filters } from './Migration20261129160000_request_log_filters.ts';

/** Applied in order at start; listed explicitly so the runtime never globs for migration files. */
export const migrationsList = [
  { name: 'Migration20261122000000_foundation', class: Migration20261122000000_foundation },
  { name: 'Migration20261122010000_listings_events', class: Migration20261122010000_listings_events },
  { name: 'Migration20261122020000_orders', class: Migration20261122020000_orders },
  { name: 'Migration20261122030000_stock_deltas', class: Migration20261122030000_stock_deltas },
  { name: 'Migration20261122040000_inventory_feed', class: Migration20261122040000_inventory_feed },
  { name: 'Migration20261122050000_external_orders', class: Migration20261122050000_external_orders },
  { name: 'Migration20261122060000_webhooks', class: Migration20261122060000_webhooks },
  { name: 'Migration20261122070000_oauth', class: Migration20261122070000_oauth },
  { name: 'Migration20261122075000_keyed_jobs', class: Migration20261122075000_keyed_jobs },
  { name: 'Migration20261122080000_facet_cells', class: Migration20261122080000_facet_cells },
  { name: 'Migration20261122090000_lean_webhook_log', class: Migration20261122090000_lean_webhook_log },
  { name: 'Migration20261125000000_gcra_limits', class: Migration20261125000000_gcra_limits },
  { name: 'Migration20261125010000_margin_index', class: Migration20261125010000_margin_index },
  { name: 'Migration20261125020000_deltas_vacuum', class: Migration20261125020000_deltas_vacuum },
  {
    name: 'Migration20261125030000_covering_sort_indexes',
    class: Migration20261125030000_covering_sort_indexes,
  },
  { name: 'Migration20261125040000_store_cells', class: Migration20261125040000_store_cells },
  {
    name: 'Migration20261125050000_unlogged_rate_limits',
    class: Migration20261125050000_unlogged_rate_limits,
  },
  { name: 'Migration20261125060000_bulk_load_stock', class: Migration20261125060000_bulk_load_stock },
  {
    name: 'Migration20261125070000_orders_sort_indexes',
    class: Migration20261125070000_orders_sort_indexes,
  },
  { name: 'Migration20261125080000_covering_cells', class: Migration20261125080000_covering_cells },
  { name: 'Migration20261125090000_bulk_load_folds', class: Migration20261125090000_bulk_load_folds },
  { name: 'Migration20261125100000_listing_earn', class: Migration20261125100000_listing_earn },
  { name: 'Migration20261125110000_store_cells_empty', class: Migration20261125110000_store_cells_empty },
  {
    name: 'Migration20261125120000_catalogue_maintenance',
    class: Migration20261125120000_catalogue_maintenance,
  },
  { name: 'Migration20261125130000_delivery_claims', class: Migration20261125130000_delivery_claims },
  {
    name: 'Migration20261125140000_subscription_holds',
    class: Migration20261125140000_subscription_holds,
  },
  {
    name: 'Migration20261125190000_idempotency_keys',
    class: Migration20261125190000_idempotency_keys,
  },
  { name: 'Migration20261125200000_event_log', class: Migration20261125200000_event_log },
  { name: 'Migration20261125210000_test_mode', class: Migration20261125210000_test_mode },
  {
    name: 'Migration20261125215000_idempotency_claim_token',
    class: Migration20261125215000_idempotency_claim_token,
  },
  {
    name: 'Migration20261128000000_idempotency_in_transaction',
    class: Migration20261128000000_idempotency_in_transaction,
  },
  {
    name: 'Migration20261128010000_event_log_time_bounds',
    class: Migration20261128010000_event_log_time_bounds,
  },
  {
    name: 'Migration20261128020000_raw_category_cover',
    class: Migration20261128020000_raw_category_cover,
  },
  {
    name: 'Migration20261128030000_search_terms',
    class: Migration20261128030000_search_terms,
  },
  {
    name: 'Migration20261128040000_taxonomy_covers',
    class: Migration20261128040000_taxonomy_covers,
  },
  {
    name: 'Migration20261128050000_inventory_fanout_pending',
    class: Migration20261128050000_inventory_fanout_pending,
  },
  {
    name: 'Migration20261128060000_stock_total_by_fanout',
    class: Migration20261128060000_stock_total_by_fanout,
  },
  {
    name: 'Migration20261128070000_inventory_fanout_versions',
    class: Migration20261128070000_inventory_fanout_versions,
  },
  {
    name: 'Migration20261128080000_listing_customisation_indexes',
    class: Migration20261128080000_listing_customisation_indexes,
  },
  {
    name: 'Migration20261128090000_order_counts',
    class: Migration20261128090000_order_counts,
  },
  {
    name: 'Migration20261128100000_orders_mode_sort_indexes',
    class: Migration20261128100000_orders_mode_sort_indexes,
  },
  {
    name: 'Migration20261128110000_sort_key_covers',
    class: Migration20261128110000_sort_key_covers,
  },
  {
    name: 'Migration20261128120000_price_slices',
    class: Migration20261128120000_price_slices,
  },
  {
    name: 'Migration20261129000000_listing_shipping_gaps',
    class: Migration20261129000000_listing_shipping_gaps,
  },
  {
    name: 'Migration20261129010000_price_slice_bounds',
    class: Migration20261129010000_price_slice_bounds,
  },
  {
    name: 'Migration20261129020000_variant_previous_price',
    class: Migration20261129020000_variant_previous_price,
  },
  { name: 'Migration20261129031000_schema_functions', class: Migration20261129031000_schema_functions },
  { name: 'Migration20261129040000_exports', class: Migration20261129040000_exports },
  { name: 'Migration20261129140000_request_log', class: Migration20261129140000_request_log },
  {
    name: 'Migration20261129150000_credential_write_marks',
    class: Migration20261129150000_credential_write_marks,
  },
  { name: 'Migration20261129150000_trace_context', class: Migration20261129150000_trace_context },
  { name: 'Migration20261129160000_request_log_filters', class: Migration20261129160000_request_log_filters },
];
