import { defineEntity, p } from '@mikro-orm/core';
import { Store } from './store.ts';

/** A bulk export (src/exports/): Migration20261129040000_exports. */
export const Export = defineEntity({
  name: 'Export',
  tableName: 'exports',
  indexes: [
    { name: 'exports_store_id_idx', properties: ['store', 'livemode', 'id'] },
    { name: 'exports_expiring_idx', properties: ['expiresAt'], where: "status IN ('completed', 'failed')" },
  ],
  uniques: [
    {
      name: 'exports_one_running_idx',
      properties: ['store', 'livemode'],
      where: "status IN ('queued', 'running')",
    },
  ],
  checks: [
    {
      name: 'exports_type_check',
      expression: "type = ANY (ARRAY['catalogue'::text, 'listings'::text, 'orders'::text])",
    },
    {
      name: 'exports_status_check',
      expression:
        "status = ANY (ARRAY['queued'::text, 'running'::text, 'completed'::text, 'failed'::text, 'expired'::text])",
    },
  ],
  properties: {
    id: p.bigint().primary().autoincrement().generated('by default as identity'),
    store: () => p.manyToOne(Store).updateRule('no action').deleteRule('cascade'),
    livemode: p.boolean().default(true),
    type: p.text(),
    status: p.text().default('queued'),
    filters: p.json().defaultRaw(`'{}'::jsonb`),
    canReadCustomers: p.boolean().default(true),
    rowsWritten: p.bigint().defaultRaw('0'),
    rowCount: p.bigint().nullable(),
    bytes: p.bigint().nullable(),
    fileKey: p.text().nullable(),
    continuation: p.json().nullable(),
    errorCode: p.text().nullable(),
    errorMessage: p.text().nullable(),
    createdAt: p.datetime().defaultRaw(`now()`),
    startedAt: p.datetime().nullable(),
    completedAt: p.datetime().nullable(),
    expiresAt: p.datetime().nullable(),
  },
});
