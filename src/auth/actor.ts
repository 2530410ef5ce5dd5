export const APP_SCOPES = [
  'read_products',
  'write_products',
  'read_inventory',
  'write_inventory',
  'read_orders',
  'write_orders',
  'read_customers',
  'write_external_orders',
] as const;
export type AppScope = (typeof APP_SCOPES)[number];

/**
 * Scopes only a token for the vendor MCP endpoint can carry: the store owner's own assistant may do
 * what partner apps never may (manage the store's webhook subscriptions).
 */
export const MCP_ONLY_SCOPES = ['manage_webhooks'] as const;
export type McpOnlyScope = (typeof MCP_ONLY_SCOPES)[number];

/** Every scope the authorization server grants, for one resource or the other. */
export const OAUTH_SCOPES = [...APP_SCOPES, ...MCP_ONLY_SCOPES] as const;
export type OAuthScope = (typeof OAUTH_SCOPES)[number];

/** What an operation asks of an app token: one scope, any scope (`*`), or none (apps refused). */
export type AppScopeRule = AppScope | '*' | null;

/**
 * Every credential resolves to this one shape, so routers never care whether the caller holds an
 * API key, an OAuth app token or a vendor MCP token.
 */
export interface Actor {
  storeId: number;
  /** `mcp`: an OAuth token for the vendor MCP endpoint, bound by the app rules plus `mcpScopes`. */
  kind: 'api_key' | 'app' | 'mcp';
  /** The method rule: `read` allows GET/HEAD only. */
  scope: 'read' | 'read_write';
  /** Resource scopes granted to an app or MCP client; empty for API keys, which are not bound by them. */
  appScopes: ReadonlySet<AppScope>;
  /** MCP-only scopes of an MCP token; absent for every other credential. */
  mcpScopes?: ReadonlySet<McpOnlyScope>;
  credentialId: number;
  appId?: number;
  /** Whether buyer names, emails, phones and addresses may appear in answers. */
  canReadCustomers: boolean;
  /**
   * Live or test mode: an `sl_test_` key acts on the store's test orders, invoices, webhook
   * subscriptions and events, and never sees live ones (docs/decisions.md, "Test mode"). OAuth tokens
   * act in live mode.
   */
  livemode: boolean;
  /**
   * The WAL position (pg_lsn text) of this credential's last write, as its lookup read it: a replica
   * serves its reads only once it has replayed past it (write-marks.ts). Absent: no write recorded.
   */
  lastWriteLsn?: string;
}

export function isAppScope(s: string): s is AppScope {
  return (APP_SCOPES as readonly string[]).includes(s);
}

/** `write_*` scopes include their `read_*`; `read_customers` is never implied. */
export function appHasScope(granted: ReadonlySet<AppScope>, needed: AppScope): boolean {
  if (granted.has(needed)) return true;
  if (needed.startsWith('read_') && needed !== 'read_customers') {
    return granted.has(needed.replace('read_', 'write_') as AppScope);
  }
  return false;
}

/** Whether an OAuth actor (app or MCP) holds a scope, implied ones included. */
export function actorHasScope(actor: Actor, needed: OAuthScope): boolean {
  return isAppScope(needed) ? appHasScope(actor.appScopes, needed) : (actor.mcpScopes?.has(needed) ?? false);
}

/** The scopes an OAuth actor holds, as granted (implied ones not spelled out). */
export function actorScopes(actor: Actor): OAuthScope[] {
  return [...actor.appScopes, ...(actor.mcpScopes ?? [])];
}

/**
 * The store itself, acting in-process with a full API key's rights (no credential behind it): what
 * the platform uses to read or act as the store, e.g. an order event's payload or a test trigger.
 */
export function storeActor(storeId: number, livemode: boolean): Actor {
  return {
    storeId,
    kind: 'api_key',
    scope: 'read_write',
    appScopes: new Set(),
    credentialId: 0,
    canReadCustomers: true,
    livemode,
  };
}
