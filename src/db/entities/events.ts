import { defineEntity, p } from '@mikro-orm/core';
import { Store } from './store.ts';

export const DomainEvent = defineEntity({
  name: 'DomainEvent',
  tableName: 'domain_events',
  indexes: [
    {
      name: 'domain_events_pending_idx',
      where: 'dispatched_at IS NULL',
      properties: ['id'],
    },
    { name: 'domain_events_store_idx', properties: ['store', 'id'] },
  ],
  checks: [
    {
      name: 'domain_events_event_check',
      expression: "event ~ '^[a-z_]+\\.[a-z_]+$'::text",
    },
  ],
  properties: {
    id: p.bigint().primary().autoincrement().generated('identity'),
    store: () => p.manyToOne(Store).updateRule('no action').deleteRule('cascade'),
    event: p.text(),
    entityId: p.bigint(),
    data: p.json().defaultRaw(`'{}'::jsonb`),
    createdAt: p.datetime().defaultRaw(`now()`),
    dispatchedAt: p.datetime().nullable(),
    livemode: p.boolean().default(true),
    /** The W3C traceparent of the request that caused it, when tracing was on (docs/tracing.md). */
    traceparent: p.text().nullable(),
  },
});
