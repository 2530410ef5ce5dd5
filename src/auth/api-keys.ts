import { randomToken } from './secret-tokens.ts';

export const API_KEY_PATTERN = /^sl_(live|test)_[a-z2-7]{32,}$/;

/** 40 base32 characters = 200 bits of randomness after the `sl_live_` / `sl_test_` prefix. */
export function generateApiKey(mode: 'live' | 'test'): string {
  return randomToken(`sl_${mode}_`);
}

/** What dashboards show to tell keys apart: the prefix and the first four random characters. */
export function displayPrefix(token: string): string {
  return token.slice(0, token.indexOf('_', 3) + 5);
}
