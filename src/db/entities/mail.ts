import { defineEntity, p } from '@mikro-orm/core';
import { Order } from './orders.ts';
import { Store } from './store.ts';

export const OutboxMail = defineEntity({
  name: 'OutboxMail',
  tableName: 'mail_outbox',
  indexes: [
    {
      name: 'mail_outbox_queued_idx',
      where: "status = 'queued'::text",
      properties: ['nextAttemptAt', 'id'],
    },
  ],
  properties: {
    id: p.integer().primary().autoincrement().generated('identity'),
    store: () => p.manyToOne(Store).updateRule('no action').nullable(),
    kind: p.text(),
    toAddress: p.text(),
    subject: p.text(),
    textBody: p.text(),
    order: () => p.manyToOne(Order).updateRule('no action').nullable(),
    status: p.enum(['queued', 'sent', 'held', 'failed']).default('queued'),
    attempts: p.integer().default(0),
    lastError: p.text().nullable(),
    nextAttemptAt: p.datetime().defaultRaw(`now()`),
    createdAt: p.datetime().defaultRaw(`now()`),
    sentAt: p.datetime().nullable(),
  },
});
