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

/** What an operation asks of an app token: one scope, any scope (`*`), or none (apps refused). */
export type AppScopeRule = AppScope | '*' | null;

/**
 * Every credential resolves to this one shape, so routers never care whether the caller holds an
 * API key or an OAuth app token.
 */
export interface Actor {
  storeId: number;
  kind: 'api_key' | 'app';
  /** The method rule: `read` allows GET/HEAD only. */
  scope: 'read' | 'read_write';
  /** Resource scopes granted to an app; empty for API keys, which are not bound by them. */
  appScopes: ReadonlySet<AppScope>;
  credentialId: number;
  appId?: number;
  /** Whether buyer names, emails, phones and addresses may appear in answers. */
  canReadCustomers: boolean;
}

/** `write_*` scopes include their `read_*`; `read_customers` is never implied. */
export function appHasScope(granted: ReadonlySet<AppScope>, needed: AppScope): boolean {
  if (granted.has(needed)) return true;
  if (needed.startsWith('read_') && needed !== 'read_customers') {
    return granted.has(needed.replace('read_', 'write_') as AppScope);
  }
  return false;
}
