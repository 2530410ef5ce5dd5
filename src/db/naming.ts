import { UnderscoreNamingStrategy } from '@mikro-orm/core';

const POSTGRES_SUFFIX = { foreign: 'fkey', unique: 'key', check: 'check', index: 'idx' } as const;

/**
 * Constraint names as PostgreSQL gives them (`orders_store_id_fkey`, `stores_slug_key`): the schema
 * was written as SQL migrations that let PostgreSQL name things, and the entities must describe that
 * schema exactly for the schema-diff test to be empty.
 */
export class PostgresNamingStrategy extends UnderscoreNamingStrategy {
  override indexName(
    tableName: string,
    columns: string[],
    type: Parameters<UnderscoreNamingStrategy['indexName']>[2],
  ): string {
    const suffix = POSTGRES_SUFFIX[type as keyof typeof POSTGRES_SUFFIX];
    if (!suffix || columns.length === 0) return super.indexName(tableName, columns, type);
    const table = tableName.includes('.') ? tableName.slice(tableName.indexOf('.') + 1) : tableName;
    return `${table}_${columns.map((c) => c.replace(/\./g, '_')).join('_')}_${suffix}`;
  }
}
