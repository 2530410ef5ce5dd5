import { defineEntity, p } from '@mikro-orm/core';
import { Store } from './store.ts';

export const WebhookSubscription = defineEntity({
  name: 'WebhookSubscription',
  tableName: 'webhook_subscriptions',
  indexes: [
    {
      name: 'webhook_subscriptions_due_idx',
      where: 'active AND (next_due_at IS NOT NULL)',
      properties: ['nextDueAt', 'id'],
    },
  ],
  checks: [
    {
      name: 'webhook_subscriptions_events_check',
      expression: 'cardinality(events) > 0',
    },
    {
      name: 'webhook_subscriptions_url_check',
      expression: "(url ~~ 'https://%'::text) AND (length(url) <= 2048)",
    },
  ],
  properties: {
    id: p.integer().primary().autoincrement().generated('identity'),
    store: () =>
      p
        .manyToOne(Store)
        .updateRule('no action')
        .deleteRule('cascade')
        .index('webhook_subscriptions_store_idx'),
    url: p.text(),
    events: p.array(),
    active: p.boolean().default(true),
    disabledReason: p.enum(['manual', 'gone', 'dead_letters']).nullable(),
    secretEncrypted: p.text(),
    deadLetterStreak: p.integer().default(0),
    createdAt: p.datetime().defaultRaw(`now()`),
    updatedAt: p.datetime().defaultRaw(`now()`),
    nextDueAt: p.datetime().nullable(),
    lastClaimedAt: p.datetime().nullable(),
    heldBy: p.uuid().nullable(),
    heldUntil: p.datetime().nullable(),
    livemode: p.boolean().default(true),
  },
});

export const WebhookDelivery = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  indexes: [
    {
      name: 'webhook_deliveries_subscription_due_idx',
      where: "status = 'pending'::text",
      properties: ['subscription', 'nextAttemptAt', 'id'],
    },
  ],
  properties: {
    id: p.bigint().primary().autoincrement().generated('identity'),
    subscription: () => p.manyToOne(WebhookSubscription).updateRule('no action').deleteRule('cascade'),
    eventId: p.bigint(),
    status: p.enum(['pending', 'succeeded', 'dead', 'discarded']).default('pending'),
    attempts: p.integer().default(0),
    roundAttempts: p.integer().default(0),
    nextAttemptAt: p.datetime().defaultRaw(`now()`),
    createdAt: p.datetime().defaultRaw(`now()`),
    updatedAt: p.datetime().defaultRaw(`now()`),
  },
});

export const WebhookAttempt = defineEntity({
  name: 'WebhookAttempt',
  tableName: 'webhook_attempts',
  indexes: [
    {
      name: 'webhook_attempts_subscription_idx',
      properties: ['subscription', 'id'],
    },
  ],
  properties: {
    id: p.bigint().primary().autoincrement().generated('identity'),
    deliveryId: p.bigint(),
    subscription: () => p.manyToOne(WebhookSubscription).updateRule('no action').deleteRule('cascade'),
    attempt: p.integer(),
    outcome: p.enum(['succeeded', 'failed', 'gone', 'refused']),
    responseStatus: p.integer().nullable(),
    error: p.text().nullable(),
    durationMs: p.integer(),
    nextAttemptAt: p.datetime().nullable(),
    createdAt: p.datetime().defaultRaw(`now()`),
  },
});

/**
 * Every event of every store, kept 30 days (the event log, GET /api/v1/events), with the exact envelope
 * bytes a delivery sends. Its position is `(xid, id)`: readers stay below `pg_snapshot_xmin`. `inOrder`
 * (stamped by the trigger `webhook_events_in_order`, never written by the application) marks the events
 * whose `created_at` follows the log's order to within six minutes: the time filters' bounds.
 */
export const WebhookEvent = defineEntity({
  name: 'WebhookEvent',
  tableName: 'webhook_events',
  indexes: [
    {
      name: 'webhook_events_log_idx',
      properties: ['store', 'livemode', 'event', 'xid', 'id'],
      include: ['createdAt'],
    },
    {
      name: 'webhook_events_order_time_idx',
      properties: ['store', 'livemode', 'createdAt'],
      include: ['xid', 'id'],
      where: 'in_order',
    },
    {
      name: 'webhook_events_late_time_idx',
      properties: ['store', 'livemode', 'createdAt'],
      include: ['event', 'xid', 'id'],
      where: '(NOT in_order)',
    },
  ],
  properties: {
    id: p.bigint().primary().autoincrement().generated('identity'),
    store: () => p.manyToOne(Store).updateRule('no action').deleteRule('cascade'),
    event: p.text(),
    eventKey: p.text(),
    body: p.text(),
    createdAt: p.datetime().defaultRaw(`now()`),
    xid: p.unknown().columnType('xid8').defaultRaw(`pg_current_xact_id()`),
    livemode: p.boolean().default(true),
    inOrder: p.boolean().default(false),
    /** The W3C traceparent of the request that caused it, when tracing was on (docs/tracing.md). */
    traceparent: p.text().nullable(),
  },
});
