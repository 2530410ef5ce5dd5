import { Migration } from '@mikro-orm/migrations';

/**
 * A variant's stock change no longer rewrites its product's total in the changing transaction: the
 * `inventory_fanout` job that already follows every such change sets it (src/inventory/stock-total.ts)
 * before it moves the feeds. A product row carries 21 indexes, 15 of them with its stock, so each
 * order's update was a non-HOT write of 21 index entries per product: 31 KB of WAL per variant
 * changed against 3.5 KB for the variant alone, and at 2M products the p99 of a wholesale order on
 * distinct products was set by it. The job coalesces a hot product's changes (one update for any
 * number of orders while it waits), and the catalogue's product stock follows within the job's lag,
 * as the inventory feed always has. Variants added or deleted still move the total at once
 * (Migration20261122030000_stock_deltas): catalogue edits, not orders.
 */
export class Migration20261128060000_stock_total_by_fanout extends Migration {
  override name = 'Migration20261128060000_stock_total_by_fanout';

  override up(): void {
    this.addSql(`
DROP TRIGGER product_variants_stock_upd ON product_variants;
DROP FUNCTION product_stock_changed();
`);
  }
}
