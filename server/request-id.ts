import { encodeBase32LowerCaseNoPadding } from '@oslojs/encoding';

export function newRequestId(): string {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return `req_${encodeBase32LowerCaseNoPadding(bytes)}`;
}

/** What a client's own request id may be: short, and nothing that could forge or break a log line. */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,200}$/;

/**
 * The request's id: the client's `X-Request-Id` when it is one we can keep (1–200 characters of
 * `A–Z a–z 0–9 . _ : -`), so a partner can trace a call through their logs and ours; else (absent,
 * sent twice, or any other character) a fresh one.
 */
export function requestIdOf(header: string | string[] | undefined): string {
  return typeof header === 'string' && CLIENT_REQUEST_ID.test(header) ? header : newRequestId();
}
