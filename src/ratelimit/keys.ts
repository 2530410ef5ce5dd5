import type { Actor } from '../auth/actor.ts';

/**
 * Every key the shared limiter (limiter.ts) counts under, in one place: two callers spelling one
 * key differently would each get a full allowance, and a key's prefix is what `rate_limits` rows
 * are recognised by. Test mode prefixes the partner keys (`test:`), so a sandbox never uses up the
 * live allowance, as Stripe's does.
 */

/** Who a limit counts: the parts of an actor that key its allowances. */
export type Limited = Pick<Actor, 'storeId' | 'kind' | 'credentialId' | 'appId' | 'livemode'>;

/** The shared limits an operation may name, each with the settings' allowance of the same name. */
export type OperationLimit = 'inventory' | 'external_orders';

/** A partner limit: its key, and the settings' allowance (requests a minute) it counts against. */
export interface PartnerLimit {
  key: string;
  allowance: 'app' | OperationLimit;
}

/**
 * Every limit a partner request counts against. An OAuth client has a per-store allowance for any
 * call (an MCP client one of its own, apart from the same client's calls as an app); an operation
 * may name a shared limit of its own (per store for inventory, per credential for external orders).
 */
export function partnerLimits(actor: Limited, operation: OperationLimit | undefined): PartnerLimit[] {
  const keys: PartnerLimit[] = [];
  const mode = actor.livemode ? '' : 'test:';
  if (actor.kind !== 'api_key') {
    const client = `${actor.kind === 'mcp' ? 'mcp' : 'app'}:${actor.storeId}:${actor.appId ?? 0}`;
    keys.push({ key: `${mode}${client}`, allowance: 'app' });
  }
  if (operation === 'inventory')
    keys.push({ key: `${mode}inventory:store:${actor.storeId}`, allowance: operation });
  if (operation === 'external_orders')
    keys.push({ key: `${mode}external_orders:${actor.kind}:${actor.credentialId}`, allowance: operation });
  return keys;
}

/** Longest client-chosen text kept in a key: a client_id or an email cannot grow the table's keys. */
const CLIENT_TEXT_MAX = 200;

/** The OAuth token and revocation endpoints: per address, and per client so a new address cannot escape. */
export function oauthTokenKeys(ip: string, clientId: string | null): string[] {
  const keys = [`oauth_token:ip:${ip}`];
  if (clientId) keys.push(`oauth_token:client:${clientId.slice(0, CLIENT_TEXT_MAX)}`);
  return keys;
}

/** Dynamic client registration, per address. */
export const oauthRegisterKey = (ip: string) => `oauth_register:${ip}`;

/** The RFC 8414 / RFC 9728 discovery documents, per address. */
export const discoveryKey = (ip: string) => `discovery:${ip}`;

/** Consent's sign-in form: password guessing per address, and per account whatever the address. */
export function signInKeys(ip: string, email: string): { ip: string; account: string } {
  return { ip: `signin:ip:${ip}`, account: `signin:email:${email}` };
}
