import { defineEntity, p } from '@mikro-orm/core';
import { Store } from './store.ts';

export const DashboardUser = defineEntity({
  name: 'DashboardUser',
  tableName: 'dashboard_users',
  checks: [{ name: 'dashboard_users_email_check', expression: 'email = lower(email)' }],
  properties: {
    id: p.integer().primary().autoincrement().generated('identity'),
    store: () => p.manyToOne(Store).updateRule('no action').deleteRule('cascade'),
    email: p.text().unique('dashboard_users_email_key'),
    passwordHash: p.text(),
    createdAt: p.datetime().defaultRaw(`now()`),
  },
});

export const OAuthClient = defineEntity({
  name: 'OAuthClient',
  tableName: 'oauth_clients',
  checks: [
    {
      name: 'oauth_clients_redirect_uris_check',
      expression: 'cardinality(redirect_uris) > 0',
    },
  ],
  properties: {
    id: p.integer().primary().autoincrement().generated('identity'),
    clientId: p.text().unique('oauth_clients_client_id_key'),
    clientName: p.text(),
    redirectUris: p.array(),
    scope: p.text(),
    metadata: p.json().defaultRaw(`'{}'::jsonb`),
    createdAt: p.datetime().defaultRaw(`now()`),
  },
});

export const OAuthCode = defineEntity({
  name: 'OAuthCode',
  tableName: 'oauth_codes',
  properties: {
    codeHash: p.text().primary(),
    grant: () => p.manyToOne(OAuthGrant).updateRule('no action').deleteRule('cascade'),
    client: () => p.manyToOne(OAuthClient).updateRule('no action').deleteRule('cascade'),
    redirectUri: p.text(),
    codeChallenge: p.text(),
    resource: p.text(),
    scopes: p.array(),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
  },
});

export const OAuthGrant = defineEntity({
  name: 'OAuthGrant',
  tableName: 'oauth_grants',
  uniques: [
    {
      name: 'oauth_grants_store_id_client_id_key',
      properties: ['store', 'client'],
    },
  ],
  properties: {
    id: p.integer().primary().autoincrement().generated('identity'),
    store: () => p.manyToOne(Store).updateRule('no action').deleteRule('cascade'),
    client: () => p.manyToOne(OAuthClient).updateRule('no action').deleteRule('cascade'),
    scopes: p.array(),
    createdAt: p.datetime().defaultRaw(`now()`),
    updatedAt: p.datetime().defaultRaw(`now()`),
    revokedAt: p.datetime().nullable(),
  },
});

export const OAuthRequest = defineEntity({
  name: 'OAuthRequest',
  tableName: 'oauth_requests',
  properties: {
    id: p.text().primary(),
    client: () => p.manyToOne(OAuthClient).updateRule('no action').deleteRule('cascade'),
    redirectUri: p.text(),
    scopes: p.array(),
    state: p.text().nullable(),
    codeChallenge: p.text(),
    resource: p.text(),
    expiresAt: p.datetime(),
  },
});

export const OAuthSession = defineEntity({
  name: 'OAuthSession',
  tableName: 'oauth_sessions',
  properties: {
    tokenHash: p.text().primary(),
    user: () => p.manyToOne(DashboardUser).updateRule('no action').deleteRule('cascade'),
    csrfToken: p.text(),
    expiresAt: p.datetime(),
  },
});

export const OAuthToken = defineEntity({
  name: 'OAuthToken',
  tableName: 'oauth_tokens',
  properties: {
    id: p.integer().primary().autoincrement().generated('identity'),
    tokenHash: p.text().unique('oauth_tokens_token_hash_key'),
    kind: p.enum(['access', 'refresh']),
    grant: () =>
      p.manyToOne(OAuthGrant).updateRule('no action').deleteRule('cascade').index('oauth_tokens_grant_idx'),
    codeHash: p.text().index('oauth_tokens_code_idx'),
    resource: p.text(),
    scopes: p.array(),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
    createdAt: p.datetime().defaultRaw(`now()`),
  },
});
