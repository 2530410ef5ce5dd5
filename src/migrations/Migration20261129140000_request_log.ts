import { Migration } from '@mikro-orm/migrations';

/**
 * The request log (GET /api/v1/requests): one row per authenticated /api/v1 request of a store, kept
 * 7 days, written in batches by each API process (src/request-log/recorder.ts). No bodies. The list
 * reads a store's rows newest first (`request_log_list_idx`), a status or status class by
 * `request_log_status_idx`, one request by its id by `request_log_request_id_idx`; the retention job
 * deletes by age through a BRIN index on `created_at` (rows arrive in time order, so a few pages of
 * index cover the whole table).
 */
export class Migration20261129140000_request_log extends Migration {
  override name = 'Migration20261129140000_request_log';

  override async up(): Promise<void> {
    this.addSql(`CREATE TABLE request_log (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      store_id integer NOT NULL REFERENCES stores (id) ON DELETE CASCADE,
      livemode boolean NOT NULL,
      request_id text NOT NULL,
      method text NOT NULL,
      path text NOT NULL,
      query text,
      operation text,
      status smallint NOT NULL,
      error_type text,
      error_code text,
      duration_ms double precision NOT NULL,
      credential_type text NOT NULL,
      credential_id integer NOT NULL,
      credential_prefix text,
      app_id integer,
      app_client_id text,
      app_name text,
      idempotency_key text,
      replayed boolean NOT NULL DEFAULT false,
      user_agent text,
      created_at timestamptz NOT NULL
    )`);
    this.addSql('CREATE INDEX request_log_list_idx ON request_log (store_id, livemode, created_at, id)');
    this.addSql(
      'CREATE INDEX request_log_status_idx ON request_log (store_id, livemode, status, created_at, id)',
    );
    this.addSql('CREATE INDEX request_log_request_id_idx ON request_log (store_id, livemode, request_id)');
    this.addSql('CREATE INDEX request_log_created_brin ON request_log USING brin (created_at)');
  }
}
