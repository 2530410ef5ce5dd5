import { router } from '../trpc/init.ts';
import { partnerProcedure } from '../trpc/procedures.ts';
import { createWebhook } from './create-webhook.ts';
import { deleteWebhook } from './delete-webhook.ts';
import { getWebhook } from './get-webhook.ts';
import { listAttempts } from './list-attempts.ts';
import { listWebhooks } from './list-webhooks.ts';
import { pingWebhook } from './ping-webhook.ts';
import { resendDelivery } from './resend-delivery.ts';
import { rotateSecret } from './rotate-secret.ts';
import {
  attemptsOutput,
  createdWebhookOutput,
  createWebhookInput,
  deliveryOutput,
  listWebhooksInput,
  listWebhooksOutput,
  messageOutput,
  resendInput,
  rotatedWebhookOutput,
  updateWebhookInput,
  webhookActionInput,
  webhookOutput,
  webhookPathInput,
} from './schemas.ts';
import { updateWebhook } from './update-webhook.ts';

const TAGS = ['Webhooks'];
const BASE = '/api/v1/vendor/webhooks';
const AUTH = {
  401: 'Missing or invalid credential',
  403: 'A read-only key on a write, or an app token (webhooks are managed with API keys)',
};
const ONE = { ...AUTH, 404: 'No such subscription in this store' };
const URL_ERRORS =
  'Invalid body: not https, a private or unresolvable host, an unknown event, an empty events list';

// App tokens are refused everywhere here (`appScope: null`): subscriptions belong to the store, and only
// its owner's own assistant, over the vendor MCP endpoint with `manage_webhooks`, may manage them.
export const webhooksRouter = router({
  list: partnerProcedure
    .meta({
      appScope: null,
      mcpScope: 'manage_webhooks',
      openapi: {
        method: 'GET',
        path: BASE,
        operationId: 'listWebhooks',
        tags: TAGS,
        summary: 'List webhook subscriptions',
        description: "The store's subscriptions (never their secrets) and the set of valid event names.",
        errorResponses: AUTH,
      },
    })
    .input(listWebhooksInput)
    .output(listWebhooksOutput)
    .query(({ ctx }) => listWebhooks(ctx)),

  create: partnerProcedure
    .meta({
      appScope: null,
      mcpScope: 'manage_webhooks',
      successStatus: 201,
      openapi: {
        method: 'POST',
        path: BASE,
        operationId: 'createWebhook',
        tags: TAGS,
        summary: 'Create a webhook subscription',
        description:
          'Subscribes an `https://` endpoint with a public host to events. The answer carries the signing ' +
          'secret, shown this once. At most 10 subscriptions per store (409 `WEBHOOK_LIMIT_REACHED`).',
        errorResponses: { 400: URL_ERRORS, ...AUTH, 409: 'The store already has 10 subscriptions' },
      },
    })
    .input(createWebhookInput)
    .output(createdWebhookOutput)
    .mutation(({ ctx, input }) => createWebhook(ctx, input)),

  get: partnerProcedure
    .meta({
      appScope: null,
      mcpScope: 'manage_webhooks',
      openapi: {
        method: 'GET',
        path: `${BASE}/{id}`,
        operationId: 'getWebhook',
        tags: TAGS,
        summary: 'Get a webhook subscription',
        errorResponses: { 400: 'Invalid id', ...ONE },
      },
    })
    .input(webhookPathInput)
    .output(webhookOutput)
    .query(({ ctx, input }) => getWebhook(ctx, input)),

  update: partnerProcedure
    .meta({
      appScope: null,
      mcpScope: 'manage_webhooks',
      openapi: {
        method: 'PUT',
        path: `${BASE}/{id}`,
        operationId: 'updateWebhook',
        tags: TAGS,
        summary: 'Update a webhook subscription',
        description:
          'Changes `url`, `events` or `active`. Setting `active: true` re-enables a disabled subscription and ' +
          'clears its failure streak; `active: false` stops deliveries (pending ones are dropped).',
        errorResponses: { 400: URL_ERRORS, ...ONE },
      },
    })
    .input(updateWebhookInput)
    .output(webhookOutput)
    .mutation(({ ctx, input }) => updateWebhook(ctx, input)),

  delete: partnerProcedure
    .meta({
      appScope: null,
      mcpScope: 'manage_webhooks',
      openapi: {
        method: 'DELETE',
        path: `${BASE}/{id}`,
        operationId: 'deleteWebhook',
        tags: TAGS,
        summary: 'Delete a webhook subscription',
        description: 'Deletes the subscription with its pending deliveries and its delivery log.',
        errorResponses: { 400: 'Invalid id', ...ONE },
      },
    })
    .input(webhookPathInput)
    .output(messageOutput)
    .mutation(({ ctx, input }) => deleteWebhook(ctx, input)),

  rotateSecret: partnerProcedure
    .meta({
      appScope: null,
      mcpScope: 'manage_webhooks',
      openapi: {
        method: 'POST',
        path: `${BASE}/{id}/rotate-secret`,
        operationId: 'rotateWebhookSecret',
        tags: TAGS,
        summary: 'Rotate the signing secret',
        description: 'A new secret, shown this once, signs every attempt from now on (retries included).',
        errorResponses: { 400: 'Invalid id', ...ONE },
      },
    })
    .input(webhookActionInput)
    .output(rotatedWebhookOutput)
    .mutation(({ ctx, input }) => rotateSecret(ctx, input)),

  deliveries: partnerProcedure
    .meta({
      appScope: null,
      mcpScope: 'manage_webhooks',
      openapi: {
        method: 'GET',
        path: `${BASE}/{id}/deliveries`,
        operationId: 'listWebhookDeliveries',
        tags: TAGS,
        summary: 'The delivery log',
        description: 'The last 100 delivery attempts to this subscription, newest first.',
        errorResponses: { 400: 'Invalid id', ...ONE },
      },
    })
    .input(webhookPathInput)
    .output(attemptsOutput)
    .query(({ ctx, input }) => listAttempts(ctx, input)),

  resend: partnerProcedure
    .meta({
      appScope: null,
      mcpScope: 'manage_webhooks',
      successStatus: 202,
      openapi: {
        method: 'POST',
        path: `${BASE}/{id}/deliveries/{deliveryId}/resend`,
        operationId: 'resendWebhookDelivery',
        tags: TAGS,
        summary: 'Resend one event',
        description:
          'Queues the event of this delivery again, with a new round of attempts starting now. `deliveryId` is ' +
          "a log entry's `delivery_id`. A delivery still pending is left as it is.",
        errorResponses: {
          400: 'Invalid id',
          ...AUTH,
          404: 'No such subscription or delivery',
          409: 'Disabled',
        },
      },
    })
    .input(resendInput)
    .output(deliveryOutput)
    .mutation(({ ctx, input }) => resendDelivery(ctx, input)),

  test: partnerProcedure
    .meta({
      appScope: null,
      mcpScope: 'manage_webhooks',
      successStatus: 202,
      openapi: {
        method: 'POST',
        path: `${BASE}/{id}/test`,
        operationId: 'testWebhook',
        tags: TAGS,
        summary: 'Send a test event',
        description: 'Queues a signed `webhook.ping` to this subscription, whatever events it asked for.',
        errorResponses: { 400: 'Invalid id', ...ONE, 409: 'The subscription is disabled' },
      },
    })
    .input(webhookActionInput)
    .output(deliveryOutput)
    .mutation(({ ctx, input }) => pingWebhook(ctx, input)),
});
