import { defineEntity, p } from '@mikro-orm/core';

/**
 * Which version of each function file (src/db/functions/) the database runs: written by `migrate()`
 * (server/db-functions.ts), read by nothing else.
 */
export const SchemaFunction = defineEntity({
  name: 'SchemaFunction',
  tableName: 'schema_functions',
  properties: {
    name: p.text().primary(),
    checksum: p.text(),
    appliedAt: p.datetime().defaultRaw(`now()`),
  },
});
