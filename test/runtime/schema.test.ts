import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureDatabase } from '../../server/database.ts';
import { type Orm, openOrm } from '../../server/orm.ts';
import { entities } from '../../src/db/entities/index.ts';
import { withDatabase } from '../helpers/global-setup.ts';

/**
 * The entities are the one description of the schema in code; the migrations are what databases
 * run. MikroORM's schema diff between the two must be empty, so neither drifts from the other.
 * Triggers, their functions and Graphile Worker's schema are outside the comparison (mikro-orm.config.ts).
 */
describe('entities and the migrated schema', () => {
  let orm: Orm;
  let url: string;

  beforeAll(async () => {
    const admin = inject('pgAdminUrl');
    const name = `schema_${randomUUID().replaceAll('-', '')}`;
    await ensureDatabase(admin, name, inject('templateDb'));
    url = withDatabase(admin, name);
    orm = await openOrm(url, 2);
  });
  afterAll(async () => orm?.close(true));

  it('every table of the migrated schema has an entity, and the diff is empty', async () => {
    const diff = await orm.schema.getUpdateSchemaSQL({ wrap: false, dropTables: true });
    expect(diff.trim()).toBe('');
    const tables = await query(
      url,
      `SELECT relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind = 'r' AND relname <> 'mikro_orm_migrations' ORDER BY 1`,
    );
    const described = entities.map((e) => e.meta.tableName).sort();
    expect(described).toEqual(tables.map((r) => r.relname));
  });

  it('a column, an index or a constraint changed by hand shows in the diff', async () => {
    await query(url, 'ALTER TABLE stores ALTER COLUMN owner_email SET NOT NULL');
    await query(url, 'DROP INDEX orders_store_status_idx');
    await query(url, 'ALTER TABLE products DROP CONSTRAINT products_retail_price_cents_check');
    const diff = await orm.schema.getUpdateSchemaSQL({ wrap: false, dropTables: true });
    expect(diff).toContain('alter column "owner_email" drop not null');
    expect(diff).toContain('"orders_store_status_idx"');
    expect(diff).toContain('"products_retail_price_cents_check"');
  });
});

async function query(url: string, text: string): Promise<Array<Record<string, string>>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}
