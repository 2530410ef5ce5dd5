import { errorExample, type RouterDocs } from '../trpc/operation-docs.ts';
import type { webhooksRouter } from './router.ts';

const DISABLED = errorExample(
  'conflict',
  'WEBHOOK_DISABLED',
  'The subscription is disabled; set it active first',
);

/** The webhook operations' contract prose beyond their schemas (see src/trpc/operation-docs.ts). */
export const webhooksDocs: RouterDocs<typeof webhooksRouter> = {
  get: { description: 'One subscription of the store, without its secret.' },
  create: {
    errors: {
      '400': errorExample(
        'bad_request',
        'WEBHOOK_URL_NOT_PUBLIC',
        'the host hooks.example.com resolves to a private or reserved address; webhook endpoints must be public',
      ),
      '409': errorExample(
        'conflict',
        'WEBHOOK_LIMIT_REACHED',
        'A store can have at most 10 webhook subscriptions; delete one first',
      ),
    },
  },
  resend: {
    errors: {
      '404': errorExample('not_found', 'DELIVERY_NOT_FOUND', 'No delivery 418 for webhook subscription 7'),
      '409': DISABLED,
    },
  },
  test: { errors: { '409': DISABLED } },
};
