import { describe, expect, it } from 'vitest';
import {
  discoveryKey,
  type Limited,
  oauthRegisterKey,
  oauthTokenKeys,
  partnerLimits,
  signInKeys,
} from '../../src/ratelimit/keys.ts';

// The keys are rows of `rate_limits` shared by every process: a spelling change during a rolling
// deploy would hand each caller a second full allowance, so the exact text is the contract here.
const live: Limited = { storeId: 7, kind: 'app', credentialId: 11, appId: 3, livemode: true };

describe('rate-limit keys', () => {
  it('keys an app per store and app, and an operation limit by its own scope', () => {
    expect(partnerLimits(live, undefined)).toEqual([{ key: 'app:7:3', allowance: 'app' }]);
    expect(partnerLimits(live, 'inventory')).toEqual([
      { key: 'app:7:3', allowance: 'app' },
      { key: 'inventory:store:7', allowance: 'inventory' },
    ]);
    expect(partnerLimits({ ...live, kind: 'api_key', appId: undefined }, 'external_orders')).toEqual([
      { key: 'external_orders:api_key:11', allowance: 'external_orders' },
    ]);
  });

  it('gives an MCP client and test mode allowances of their own', () => {
    expect(partnerLimits({ ...live, kind: 'mcp' }, undefined)).toEqual([
      { key: 'mcp:7:3', allowance: 'app' },
    ]);
    expect(partnerLimits({ ...live, livemode: false }, 'inventory').map((l) => l.key)).toEqual([
      'test:app:7:3',
      'test:inventory:store:7',
    ]);
  });

  it('keys the OAuth endpoints and sign-in by address, client and account', () => {
    expect(oauthTokenKeys('10.0.0.1', null)).toEqual(['oauth_token:ip:10.0.0.1']);
    expect(oauthTokenKeys('10.0.0.1', 'c'.repeat(300))).toEqual([
      'oauth_token:ip:10.0.0.1',
      `oauth_token:client:${'c'.repeat(200)}`,
    ]);
    expect(oauthRegisterKey('::1')).toBe('oauth_register:::1');
    expect(discoveryKey('::1')).toBe('discovery:::1');
    expect(signInKeys('::1', 'a@b.c')).toEqual({ ip: 'signin:ip:::1', account: 'signin:email:a@b.c' });
  });
});
