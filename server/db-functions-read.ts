import type pg from 'pg';

/** A function of ours as the database holds it: its definitions (one per overload) and triggers. */
export interface StoredFunction {
  /** `pg_get_functiondef`: `CREATE OR REPLACE FUNCTION …`. */
  functions: string[];
  /**
   * `pg_get_triggerdef` as `CREATE OR REPLACE TRIGGER …`: replacing a trigger takes the table's SHARE
   * ROW EXCLUSIVE lock, where DROP TRIGGER would take ACCESS EXCLUSIVE and stop its readers.
   */
  triggers: string[];
}

/**
 * Every function in the public schema that is not an extension's (pg_trgm's), by name, with the
 * triggers that call it: what src/db/functions/ must hold one file for each.
 */
export async function readDefinitions(client: pg.ClientBase): Promise<Map<string, StoredFunction>> {
  const { rows } = await client.query<{ name: string; functions: string[]; triggers: string[] }>(
    `SELECT p.proname AS name,
            array_agg(pg_get_functiondef(p.oid) ORDER BY p.oid) AS functions,
            coalesce((SELECT array_agg(pg_get_triggerdef(t.oid) ORDER BY t.tgname)
                        FROM pg_trigger t JOIN pg_proc tp ON tp.oid = t.tgfoid
                       WHERE tp.proname = p.proname AND tp.pronamespace = p.pronamespace
                         AND NOT t.tgisinternal), '{}') AS triggers
       FROM pg_proc p
      WHERE p.pronamespace = 'public'::regnamespace
        AND NOT EXISTS (SELECT 1 FROM pg_depend d
                         WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
      GROUP BY p.proname, p.pronamespace
      ORDER BY p.proname`,
  );
  return new Map(
    rows.map((r) => [
      r.name,
      {
        functions: r.functions,
        triggers: r.triggers.map((t) => t.replace(/^CREATE TRIGGER/, 'CREATE OR REPLACE TRIGGER')),
      },
    ]),
  );
}
