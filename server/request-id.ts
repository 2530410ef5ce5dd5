import { encodeBase32LowerCaseNoPadding } from '@oslojs/encoding';

export function newRequestId(): string {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return `req_${encodeBase32LowerCaseNoPadding(bytes)}`;
}
