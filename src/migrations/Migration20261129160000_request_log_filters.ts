import { Migration } from '@mikro-orm/migrations';

/**
 * Each filter of GET /requests that is not rare in use gets an index that reads it newest first, so a
 * page walks only matching rows: the requests of one app (every app token's own list, and `credential`
 * naming an app), of one key prefix, of one operation, and of one Idempotency-Key. Without them a
 * filter matching a few rows walked the store's whole week (2M rows in the bench: past the statement
 * budget). Combinations read a bounded window instead (src/request-log/queries.ts).
 */
export class Migration20261129160000_request_log_filters extends Migration {
  override name = 'Migration20261129160000_request_log_filters';

  override async up(): Promise<void> {
    this.addSql(`CREATE INDEX request_log_app_idx ON request_log (store_id, livemode, app_id, created_at, id)
      WHERE app_id IS NOT NULL`);
    this.addSql(`CREATE INDEX request_log_prefix_idx
      ON request_log (store_id, livemode, credential_prefix, created_at, id) WHERE credential_prefix IS NOT NULL`);
    this.addSql(
      'CREATE INDEX request_log_operation_idx ON request_log (store_id, livemode, operation, created_at, id)',
    );
    this.addSql(`CREATE INDEX request_log_idempotency_idx
      ON request_log (store_id, livemode, idempotency_key, created_at, id) WHERE idempotency_key IS NOT NULL`);
  }
}
