import { EXAMPLE_REQUEST_ID } from '../../src/trpc/operation-docs.ts';
import { type oas31, ref } from './shared.ts';

/** Reusable response headers (components.headers). */
export const HEADERS: Record<string, oas31.HeaderObject> = {
  XRequestId: {
    description:
      'Identifies the request; quote it when asking for support. Error bodies repeat it. A client may send its own ' +
      '(1 to 200 characters of `A-Z a-z 0-9 . _ : -`) to trace a call through its logs and ours; it is echoed back.',
    schema: { type: 'string', example: EXAMPLE_REQUEST_ID },
  },
  WWWAuthenticate: {
    description:
      'RFC 9728: where the protected-resource metadata of the API is, e.g. `Bearer resource_metadata="{base_url}/.well-known/oauth-protected-resource/api/v1"`.',
    schema: { type: 'string' },
  },
  RetryAfter: {
    description: 'Seconds to wait before trying again.',
    schema: { type: 'integer', minimum: 0, example: 42 },
  },
  RateLimitLimit: {
    description:
      'Requests allowed a minute; up to this many may be sent at once. Sent by rate-limited operations (the inventory feed, marketplace orders) and on every answer to an app token.',
    schema: { type: 'integer', minimum: 0, example: 120 },
  },
  RateLimitRemaining: {
    description: 'Requests that may be sent now. One more is earned back every minute / limit.',
    schema: { type: 'integer', minimum: 0, example: 117 },
  },
  RateLimitReset: {
    description: 'Seconds until the whole allowance is back (Remaining equals Limit again).',
    schema: { type: 'integer', minimum: 0, example: 42 },
  },
};

/** The headers every rate-limited answer carries. */
export const RATE_LIMIT_HEADERS: oas31.HeadersObject = {
  'X-RateLimit-Limit': ref('headers', 'RateLimitLimit'),
  'X-RateLimit-Remaining': ref('headers', 'RateLimitRemaining'),
  'X-RateLimit-Reset': ref('headers', 'RateLimitReset'),
};
