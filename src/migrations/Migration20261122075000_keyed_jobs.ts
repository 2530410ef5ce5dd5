import { Migration } from '@mikro-orm/migrations';

/**
 * Graphile Worker's `add_job` with a job key can drop the request when a worker locks the existing
 * job between its two statements (graphile/worker#580: no row comes back, nothing is scheduled).
 * `add_keyed_job` calls it again until a job row comes back: by then the existing job is locked, so
 * the retry clears its key and inserts a fresh one. Every keyed enqueue of the service goes through it.
 */
export class Migration20261122075000_keyed_jobs extends Migration {
  override name = 'Migration20261122075000_keyed_jobs';

  override up(): void {
    this.addSql(`
CREATE OR REPLACE FUNCTION add_keyed_job(
  identifier text,
  payload json,
  job_key text,
  job_key_mode text DEFAULT 'replace',
  run_at timestamptz DEFAULT NULL,
  max_attempts integer DEFAULT NULL
) RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  -- A bigint, not the jobs row type: Graphile's schema is installed after the service's migrations.
  added_id bigint;
BEGIN
  FOR attempt IN 1..20 LOOP
    SELECT (graphile_worker.add_job(identifier, payload, run_at => run_at, max_attempts => max_attempts,
      job_key => job_key, job_key_mode => job_key_mode)).id INTO added_id;
    IF added_id IS NOT NULL THEN
      RETURN added_id;
    END IF;
  END LOOP;
  RAISE EXCEPTION 'add_keyed_job: could not schedule % (key %)', identifier, job_key;
END $$;

CREATE OR REPLACE FUNCTION product_stock_fanout() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM add_keyed_job('inventory_fanout',
    json_build_array(json_build_object('product_id', c.product_id, 'variant_ids', c.variant_ids)),
    'inventory_fanout:' || c.product_id, 'replace')
  FROM (SELECT n.product_id, array_agg(DISTINCT n.id) AS variant_ids
        FROM new_rows n JOIN old_rows o ON o.id = n.id
        WHERE n.stock_quantity IS DISTINCT FROM o.stock_quantity
        GROUP BY n.product_id) c;
  RETURN NULL;
END $$;
`);
  }
}
