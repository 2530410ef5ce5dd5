import type { EntityManager } from '@mikro-orm/postgresql';
import { type core, z } from 'zod';
import { findClient } from './clients.ts';
import { OAuthError } from './errors.ts';

/** A parameter sent exactly once and not empty: RFC 6749 §3.2 allows no repeats. */
const once = (name: string) =>
  z
    .string({ error: (issue) => `${name} ${Array.isArray(issue.input) ? 'is repeated' : 'is required'}` })
    .min(1, `${name} is required`);

/**
 * Every `resource` sent (RFC 8707 lets there be several). Whether it is the one the code or refresh
 * token is bound to can only be told from that grant, so the grant checks it, after its own state.
 */
const resource = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v) => (v === undefined ? [] : [v].flat()));

/** The narrower scope asked for on refresh; a repeat is not refused, the first value counts. */
const scope = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v) => (Array.isArray(v) ? v[0] : v) || undefined);

// Each branch's keys are in the order its fields are checked: the first issue is the one answered.
export const authorizationCodeRequest = z.object({
  grant_type: z.literal('authorization_code'),
  client_id: once('client_id'),
  code: once('code'),
  code_verifier: once('code_verifier'),
  redirect_uri: once('redirect_uri'),
  resource,
});

export const refreshTokenRequest = z.object({
  grant_type: z.literal('refresh_token'),
  client_id: once('client_id'),
  refresh_token: once('refresh_token'),
  resource,
  scope,
});

/**
 * The token endpoint's request (RFC 6749 §4.1.3, §6), one branch per grant the server issues
 * tokens for. It reads the form as `fields` gives it: a name sent once is its value, a repeated
 * name the list of its values.
 */
export const tokenRequest = z.discriminatedUnion('grant_type', [
  authorizationCodeRequest,
  refreshTokenRequest,
]);

export type TokenRequest = z.infer<typeof tokenRequest>;
export type AuthorizationCodeRequest = z.infer<typeof authorizationCodeRequest>;
export type RefreshTokenRequest = z.infer<typeof refreshTokenRequest>;

type Fields = Record<string, string | string[]>;

/** The form as the schema reads it; prototype-free, so a parameter named `__proto__` is just unknown. */
function fields(form: URLSearchParams): Fields {
  const out: Fields = Object.create(null);
  for (const name of new Set(form.keys())) {
    const values = form.getAll(name);
    out[name] = values.length === 1 ? (values[0] as string) : values;
  }
  // A repeated grant_type was never refused: the first one still picks the grant.
  const grant = form.get('grant_type');
  if (grant !== null) out.grant_type = grant;
  return out;
}

/** The OAuth error for the schema's first issue, as the endpoint answered before it had a schema. */
function refusal(issue: core.$ZodIssue, input: Fields): OAuthError {
  if (issue.code === 'invalid_union' && issue.path[0] === 'grant_type') {
    const grant = input.grant_type;
    return grant
      ? new OAuthError('unsupported_grant_type', `Unsupported grant_type ${grant}`)
      : new OAuthError('invalid_request', 'grant_type is required');
  }
  return new OAuthError('invalid_request', issue.message);
}

/**
 * The token request, typed, or the OAuth error to answer. The client is identified before the
 * grant's own fields are judged (an unknown client is `invalid_client` whatever else is missing),
 * so a request refused past `client_id` first looks the client up.
 */
export async function parseTokenRequest(em: EntityManager, form: URLSearchParams): Promise<TokenRequest> {
  const input = fields(form);
  const parsed = tokenRequest.safeParse(input);
  if (parsed.success) return parsed.data;
  const [issue] = parsed.error.issues;
  if (!issue) throw new OAuthError('invalid_request', 'The token request is invalid');
  const field = issue.path[0];
  if (field !== 'grant_type' && field !== 'client_id') {
    const clientId = input.client_id;
    if (typeof clientId !== 'string' || !(await findClient(em, clientId)))
      throw new OAuthError('invalid_client', 'Client authentication failed', 401);
  }
  throw refusal(issue, input);
}
