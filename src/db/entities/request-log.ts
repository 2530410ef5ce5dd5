import { defineEntity, p } from '@mikro-orm/core';
import { Store } from './store.ts';

/**
 * The request log (GET /api/v1/requests): one row per authenticated /api/v1 request, kept 7 days,
 * written in batches off the request path (src/request-log/recorder.ts). Never a body.
 */
export const RequestLogEntry = defineEntity({
  name: 'RequestLogEntry',
  tableName: 'request_log',
  indexes: [
    { name: 'request_log_list_idx', properties: ['store', 'livemode', 'createdAt', 'id'] },
    { name: 'request_log_status_idx', properties: ['store', 'livemode', 'status', 'createdAt', 'id'] },
    { name: 'request_log_request_id_idx', properties: ['store', 'livemode', 'requestId'] },
    { name: 'request_log_created_brin', properties: ['createdAt'], type: 'brin' },
    {
      name: 'request_log_app_idx',
      properties: ['store', 'livemode', 'appId', 'createdAt', 'id'],
      where: 'app_id IS NOT NULL',
    },
    {
      name: 'request_log_prefix_idx',
      properties: ['store', 'livemode', 'credentialPrefix', 'createdAt', 'id'],
      where: 'credential_prefix IS NOT NULL',
    },
    { name: 'request_log_operation_idx', properties: ['store', 'livemode', 'operation', 'createdAt', 'id'] },
    {
      name: 'request_log_idempotency_idx',
      properties: ['store', 'livemode', 'idempotencyKey', 'createdAt', 'id'],
      where: 'idempotency_key IS NOT NULL',
    },
  ],
  properties: {
    id: p.bigint().primary().autoincrement().generated('identity'),
    store: () => p.manyToOne(Store).updateRule('no action').deleteRule('cascade'),
    livemode: p.boolean(),
    requestId: p.text(),
    method: p.text(),
    path: p.text(),
    query: p.text().nullable(),
    operation: p.text().nullable(),
    status: p.smallint(),
    errorType: p.text().nullable(),
    errorCode: p.text().nullable(),
    durationMs: p.double(),
    credentialType: p.text(),
    credentialId: p.integer(),
    credentialPrefix: p.text().nullable(),
    appId: p.integer().nullable(),
    appClientId: p.text().nullable(),
    appName: p.text().nullable(),
    idempotencyKey: p.text().nullable(),
    replayed: p.boolean().default(false),
    userAgent: p.text().nullable(),
    createdAt: p.datetime(),
  },
});
