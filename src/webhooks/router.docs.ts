import { errorDoc, errorExample, type RouterDocs } from '../trpc/operation-docs.ts';
import type { webhooksRouter } from './router.ts';

const NO_SUCH_HOOK = errorExample('not_found', 'WEBHOOK_NOT_FOUND', 'No webhook subscription with id 7');

/** Every operation on one subscription: it must be the store's. */
const NOT_FOUND = errorDoc('No such subscription in the store', NO_SUCH_HOOK);

/** Create and update check the endpoint as every delivery does. */
const URL_REFUSED = errorDoc(
  'The endpoint is refused (not `https://`, a private or reserved address, a host that does not resolve) ' +
    'or the body is invalid (an unknown event, an empty `events` list)',
  errorExample(
    'bad_request',
    'WEBHOOK_URL_NOT_PUBLIC',
    'the host hooks.example.com resolves to a private or reserved address; webhook endpoints must be public',
  ),
  errorExample('bad_request', 'INVALID_WEBHOOK_URL', 'url must use https://'),
  errorExample('bad_request', 'WEBHOOK_HOST_UNRESOLVABLE', 'the host hooks.example.com does not resolve'),
);

const DISABLED = errorDoc(
  'The subscription is disabled: set it `active` first',
  errorExample('conflict', 'WEBHOOK_DISABLED', 'The subscription is disabled; set it active first'),
);

/** The webhook operations' contract prose beyond their schemas (see src/trpc/operation-docs.ts). */
export const webhooksDocs: RouterDocs<typeof webhooksRouter> = {
  get: { description: 'One subscription of the store, without its secret.', errors: { '404': NOT_FOUND } },
  create: {
    errors: {
      '400': URL_REFUSED,
      '409': errorDoc(
        'The store has 10 subscriptions already: delete one first',
        errorExample(
          'conflict',
          'WEBHOOK_LIMIT_REACHED',
          'A store can have at most 10 webhook subscriptions; delete one first',
        ),
      ),
    },
  },
  update: { errors: { '400': URL_REFUSED, '404': NOT_FOUND } },
  delete: { errors: { '404': NOT_FOUND } },
  rotateSecret: { errors: { '404': NOT_FOUND } },
  deliveries: { errors: { '404': NOT_FOUND } },
  resend: {
    errors: {
      '404': errorDoc(
        'No such subscription in the store, or no such delivery of it',
        NO_SUCH_HOOK,
        errorExample('not_found', 'DELIVERY_NOT_FOUND', 'No delivery 418 for webhook subscription 7'),
      ),
      '409': DISABLED,
    },
  },
  test: { errors: { '404': NOT_FOUND, '409': DISABLED } },
};
