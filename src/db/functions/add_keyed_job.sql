-- Graphile Worker's add_job with a job key, retried until a job row comes back: add_job can drop a keyed request
-- when a worker locks the existing job between its two statements (graphile/worker#580). Every keyed enqueue goes through it.

CREATE OR REPLACE FUNCTION public.add_keyed_job(identifier text, payload json, job_key text, job_key_mode text DEFAULT 'replace'::text, run_at timestamp with time zone DEFAULT NULL::timestamp with time zone, max_attempts integer DEFAULT NULL::integer)
 RETURNS bigint
 LANGUAGE plpgsql
AS $function$
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
END $function$;
