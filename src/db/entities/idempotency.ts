import { defineEntity, p } from '@mikro-orm/core';
import { Store } from './store.ts';

export const IdempotencyKey = defineEntity({
  name: 'IdempotencyKey',
  tableName: 'idempotency_keys',
  indexes: [{ name: 'idempotency_keys_created_idx', properties: ['createdAt'] }],
  checks: [
    {
      name: 'idempotency_keys_key_check',
      expression: '(length(key) >= 1) AND (length(key) <= 255)',
    },
  ],
  properties: {
    store: () => p.manyToOne(Store).primary().updateRule('no action').deleteRule('cascade'),
    livemode: p.boolean().primary().default(true),
    key: p.text().primary(),
    fingerprint: p.text(),
    requestId: p.text(),
    /** Unused since answers commit with their writes; dropped in the release after. */
    claimToken: p.uuid().nullable(),
    status: p.smallint().nullable(),
    /** The kept answer's headers and body, sealed (src/db/at-rest.ts). */
    answer: p.text().nullable(),
    /** Answers kept in clear before sealing; empty on every row written since. */
    headers: p.json().nullable(),
    body: p.text().nullable(),
    createdAt: p.datetime().defaultRaw(`now()`),
    /** Unused since answers commit with their writes; dropped in the release after. */
    completedAt: p.datetime().nullable(),
  },
});
