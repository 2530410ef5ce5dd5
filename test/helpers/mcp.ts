import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { CallToolResult, JSONRPCResultResponse } from '@modelcontextprotocol/sdk/types.js';
import type { Page } from 'playwright-core';
import type {
  AddMyProductResponse,
  AdvanceTestOrderResponse,
  CancelTestOrderResponse,
  CreateExportResponse,
  CreateWebhookResponse,
  DeleteWebhookResponse,
  GetExportResponse,
  GetMyProductResponse,
  GetOrderResponse,
  GetProductFacetsResponse,
  GetProductResponse,
  GetStoreResponse,
  ListInventoryResponse,
  ListMyProductsResponse,
  ListOrdersResponse,
  ListProductsResponse,
  ListRequestsResponse,
  ListWebhooksResponse,
  RemoveMyProductResponse,
  SetMyProductPricingResponse,
  UpdateWebhookResponse,
} from '../../client/src/index.ts';
import { TEXT_COPY_LIMIT } from '../../src/mcp/server.ts';
import type { TestApp } from './app.ts';
import {
  type AppToken,
  authorizeAndConsent,
  exchange,
  ISSUER,
  pkce,
  registerClient,
  storeUser,
} from './oauth.ts';

/** The MCP endpoint's resource identifier on every test app (PUBLIC_URL is the issuer). */
export const MCP_RESOURCE = `${ISSUER}/mcp`;
export const MCP_METADATA = `${ISSUER}/.well-known/oauth-protected-resource/mcp`;

/** What the tools need between them: the scopes the 401 challenge asks a new client for. */
export const TOOL_SCOPES = [
  'read_products',
  'write_products',
  'read_inventory',
  'read_orders',
  'manage_webhooks',
];

/**
 * A genuine MCP token: a client registered for `scopes` (unless `clientId` is given), authorized with
 * PKCE for `resource={ISSUER}/mcp`, approved by the store's user, and exchanged for that resource.
 */
export async function mintMcpToken(
  app: TestApp,
  storeId: number,
  scopes: string[],
  o: { clientId?: string } = {},
): Promise<AppToken> {
  const clientId =
    o.clientId ??
    (await registerClient(app, { client_name: 'Assistant', scope: scopes.join(' ') })).client_id;
  const { verifier, challenge } = pkce();
  const back = await authorizeAndConsent(app, {
    clientId,
    scope: scopes.join(' '),
    codeChallenge: challenge,
    resource: MCP_RESOURCE,
    user: await storeUser(app, storeId),
  });
  const code = back.searchParams.get('code');
  if (!code) throw new Error(`no code: ${back}`);
  const res = await exchange(app, { clientId, code, verifier, resource: MCP_RESOURCE });
  if (res.status !== 200) throw new Error(`token failed: ${res.status} ${res.text}`);
  return {
    access_token: res.body.access_token,
    refresh_token: res.body.refresh_token,
    scope: res.body.scope,
    clientId,
    code,
    verifier,
  };
}

/**
 * An SDK client on `{url}/mcp` holding a bearer token as is (no OAuth flow of its own). It lists the
 * tools first, as clients do: from then on it checks each structured answer against its tool's
 * advertised output schema.
 */
export async function connectWithToken(url: string, token: string): Promise<Client> {
  const client = new Client({ name: 'stockless-tests', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  await client.listTools();
  return client;
}

/** Each tool's structured content on success: its REST operation's response (src/mcp/tools.ts). */
export interface ToolResponses {
  get_store: GetStoreResponse;
  search_catalogue: ListProductsResponse;
  catalogue_facets: GetProductFacetsResponse;
  get_catalogue_product: GetProductResponse;
  list_listings: ListMyProductsResponse;
  get_listing: GetMyProductResponse;
  add_listing: AddMyProductResponse;
  remove_listing: RemoveMyProductResponse;
  set_listing_price: SetMyProductPricingResponse;
  list_orders: ListOrdersResponse;
  get_order: GetOrderResponse;
  advance_test_order: AdvanceTestOrderResponse;
  cancel_test_order: CancelTestOrderResponse;
  read_inventory: ListInventoryResponse;
  list_requests: ListRequestsResponse;
  list_webhooks: ListWebhooksResponse;
  create_webhook: CreateWebhookResponse;
  update_webhook: UpdateWebhookResponse;
  delete_webhook: DeleteWebhookResponse;
  create_export: CreateExportResponse;
  get_export: GetExportResponse;
}
export type ToolName = keyof ToolResponses;

/**
 * A tool's answer: its structured content on success, or the contract error body of a tool error.
 * `T` is the body the test expects (the REST operation's response, or `ErrorBody`); it is not checked.
 */
export function toolAnswer<T = unknown>(result: unknown): { isError: boolean; body: T } {
  const r = result as CallToolResult;
  if (r.isError) {
    const [first] = r.content;
    const body: T = JSON.parse(first?.type === 'text' ? first.text : 'null');
    return { isError: true, body };
  }
  const [first] = r.content;
  // The text block carries the same answer while it is small, for clients that read only text; a
  // larger answer is summed up in a line (src/mcp/server.ts `textOf`).
  const json = JSON.stringify(r.structuredContent);
  const copied = json.length <= TEXT_COPY_LIMIT;
  if (first?.type !== 'text' || (copied ? first.text !== json : first.text.startsWith('{'))) {
    throw new Error(`the text content does not match the structured content: ${JSON.stringify(r)}`);
  }
  return { isError: false, body: r.structuredContent as T };
}

/** A JSON-RPC success answer whose result is `R` (`ListToolsResult`, `CallToolResult`, …). */
export type RpcResult<R> = Omit<JSONRPCResultResponse, 'result'> & { result: R };

/**
 * A raw JSON-RPC POST to /mcp, as a client of either protocol version sends one. `T` is the body the
 * test expects (`RpcResult<…>`, `JSONRPCErrorResponse`, or the HTTP refusal's `ErrorBody`).
 */
export async function postMcp<T = unknown>(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: T; headers: Headers }> {
  const res = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed as T, headers: res.headers };
}

/**
 * The SDK's OAuth client state, kept in memory as a desktop client keeps it on disk. Sending the user
 * to the authorization URL is the test's to do (`authorize`): it answers the code the browser came
 * back with, which `code` then holds for `transport.finishAuth`.
 */
export class MemoryOAuthProvider implements OAuthClientProvider {
  readonly redirectUrl: string;
  readonly clientMetadata: OAuthClientMetadata;
  readonly authorizationUrls: URL[] = [];
  code: string | undefined;
  private client: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier = '';
  private discovery: OAuthDiscoveryState | undefined;
  private readonly authorize: (url: URL) => Promise<string>;

  /** `registered`: the redirect URIs it registers, when not `redirectUrl` itself (a loopback URI without its port). */
  constructor(redirectUrl: string, authorize: (url: URL) => Promise<string>, registered = [redirectUrl]) {
    this.redirectUrl = redirectUrl;
    this.authorize = authorize;
    this.clientMetadata = {
      client_name: 'Stockless test assistant',
      redirect_uris: registered,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  async redirectToAuthorization(url: URL) {
    this.authorizationUrls.push(url);
    this.code = await this.authorize(url);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'tokens') this.saved = undefined;
    if (scope === 'all' || scope === 'client') this.client = undefined;
    if (scope === 'all' || scope === 'discovery') this.discovery = undefined;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
}

/**
 * Sign-in and approval on the consent page, as the store's owner does it in a browser tab: answers the
 * code of the redirect back to the client, and what the consent page listed.
 */
export async function approveInBrowser(
  page: Page,
  authorizationUrl: URL,
  user: { email: string; password: string },
  redirectUrl: string,
): Promise<{ code: string; scopes: string[]; notes: string[] }> {
  await page.goto(authorizationUrl.toString());
  if (await page.getByLabel('Email').count()) {
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }
  await page.getByRole('button', { name: 'Approve' }).waitFor();
  const scopes = await page.locator('li strong').allTextContents();
  const notes = await page.locator('p').allTextContents();
  await Promise.all([
    page.waitForURL(`${redirectUrl}?**`),
    page.getByRole('button', { name: 'Approve' }).click(),
  ]);
  const code = new URL(page.url()).searchParams.get('code');
  if (!code) throw new Error(`no code in ${page.url()}`);
  return { code, scopes, notes };
}
