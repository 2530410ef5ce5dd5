import { Migration } from '@mikro-orm/migrations';

/**
 * OAuth 2.1 for partner apps: dashboard users (who consent), registered public clients, one grant per
 * (store, app), pending authorization requests, single-use codes, and opaque tokens stored as hashes.
 */
export class Migration20261122070000_oauth extends Migration {
  override name = 'Migration20261122070000_oauth';

  override up(): void {
    this.addSql(`
CREATE TABLE dashboard_users (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  store_id integer NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
  email text NOT NULL UNIQUE CHECK (email = lower(email)),
  -- scrypt: "scrypt$N$r$p$salt$hash" (base64).
  password_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE oauth_clients (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  client_id text NOT NULL UNIQUE,
  client_name text NOT NULL,
  redirect_uris text[] NOT NULL CHECK (cardinality(redirect_uris) > 0),
  scope text NOT NULL,
  metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE oauth_grants (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  store_id integer NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
  client_id integer NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
  scopes text[] NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz,
  UNIQUE (store_id, client_id)
);

CREATE TABLE oauth_requests (
  id text PRIMARY KEY,
  client_id integer NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
  redirect_uri text NOT NULL,
  scopes text[] NOT NULL,
  state text,
  code_challenge text NOT NULL,
  resource text NOT NULL,
  expires_at timestamptz NOT NULL
);

CREATE TABLE oauth_sessions (
  token_hash text PRIMARY KEY,
  user_id integer NOT NULL REFERENCES dashboard_users(id) ON DELETE CASCADE,
  csrf_token text NOT NULL,
  expires_at timestamptz NOT NULL
);

CREATE TABLE oauth_codes (
  code_hash text PRIMARY KEY,
  grant_id integer NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
  client_id integer NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
  redirect_uri text NOT NULL,
  code_challenge text NOT NULL,
  resource text NOT NULL,
  scopes text[] NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);

CREATE TABLE oauth_tokens (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  token_hash text NOT NULL UNIQUE,
  kind text NOT NULL CHECK (kind IN ('access', 'refresh')),
  grant_id integer NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
  -- The code the token chain started from: a replayed code revokes everything it issued.
  code_hash text NOT NULL,
  resource text NOT NULL,
  scopes text[] NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  revoked_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oauth_tokens_grant_idx ON oauth_tokens (grant_id);
CREATE INDEX oauth_tokens_code_idx ON oauth_tokens (code_hash);
`);
  }
}
