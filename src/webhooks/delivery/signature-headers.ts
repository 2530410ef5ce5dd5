import { createHmac } from 'node:crypto';
import { rememberUpTo } from './bounded-cache.ts';

const standardKeys = rememberUpTo<Buffer>(1000);

/** The Standard Webhooks key: the secret's base64 part, decoded (once per secret). */
function standardKeyOf(secret: string): Buffer {
  return standardKeys(secret, () => Buffer.from(secret.slice('whsec_'.length), 'base64'));
}

/**
 * Headers that sign one attempt: the contract's `X-Stockless-Signature` (`t=<unix>,v1=<hex>`, HMAC-SHA256
 * of `<t>.<body>` keyed with the whole secret string, as Stripe's libraries verify) and the Standard
 * Webhooks trio (HMAC-SHA256 of `<id>.<t>.<body>` keyed with the base64-decoded secret).
 */
export function signatureHeaders(
  secret: string,
  body: string,
  messageId: string,
  now: Date = new Date(),
): Record<string, string> {
  const t = Math.floor(now.getTime() / 1000);
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  const standardKey = standardKeyOf(secret);
  const standard = createHmac('sha256', standardKey).update(`${messageId}.${t}.${body}`).digest('base64');
  return {
    'x-stockless-signature': `t=${t},v1=${v1}`,
    'webhook-id': messageId,
    'webhook-timestamp': String(t),
    'webhook-signature': `v1,${standard}`,
  };
}
