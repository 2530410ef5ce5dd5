import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ErrorBody } from '../../client/src/index.ts';
import { rows, sql } from '../../src/db/sql.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { send } from '../helpers/http.ts';
import { connectWithToken, mintMcpToken, type ToolResponses, toolAnswer } from '../helpers/mcp.ts';

/**
 * The MCP tool `list_requests`: the store owner's assistant reads the request log. With manage_webhooks
 * (the scope of an assistant that manages the store's integrations) it reads every credential's live
 * requests; without, only its own app's (none: an MCP token never calls the REST API).
 */

let app: TestApp;
let store: Awaited<ReturnType<TestApp['createStore']>>;
let other: Awaited<ReturnType<TestApp['createStore']>>;

beforeAll(async () => {
  app = await startTestApp({}, { requestLog: { flushMs: 50 } });
  store = await app.createStore('Assistant Store');
  other = await app.createStore('Someone Else');
});
afterAll(async () => {
  await app?.close();
});

async function logged(path: string, key: string): Promise<string> {
  const id = (await send(app, 'GET', path, { key })).headers.get('x-request-id') ?? '';
  for (let i = 0; i < 200; i++) {
    await app.requestLog?.flush();
    const [row] = await rows<{ n: number }>(
      app.em(),
      sql`SELECT count(*)::integer AS n FROM request_log WHERE request_id = ${id}`,
    );
    if ((row?.n ?? 0) > 0) return id;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${id} not logged`);
}

describe('list_requests', () => {
  it("answers what GET /requests answers, the store's requests only, filtered as asked", async () => {
    const refused = await logged('/api/v1/orders/31337', store.readWrite);
    const ok = await logged('/api/v1/vendor/me', store.read);
    const elsewhere = await logged('/api/v1/orders/31337', other.readWrite);
    const client = await connectWithToken(
      app.url,
      (await mintMcpToken(app, store.id, ['read_orders', 'manage_webhooks'])).access_token,
    );
    try {
      const all = toolAnswer<ToolResponses['list_requests']>(
        await client.callTool({ name: 'list_requests', arguments: { limit: 50 } }),
      );
      expect(all.isError).toBe(false);
      const ids = all.body.requests.map((r) => r.id);
      expect(ids).toEqual(expect.arrayContaining([refused, ok]));
      expect(ids).not.toContain(elsewhere);
      const failing = toolAnswer<ToolResponses['list_requests']>(
        await client.callTool({ name: 'list_requests', arguments: { status_class: '4xx' } }),
      );
      expect(failing.body.requests.map((r) => r.id)).toEqual([refused]);
      expect(failing.body.requests[0]).toMatchObject({ status: 404, error: { code: 'ORDER_NOT_FOUND' } });
      const bad = toolAnswer<ErrorBody>(
        await client.callTool({ name: 'list_requests', arguments: { status_class: '3xx' } }),
      );
      expect(bad.isError).toBe(true);
      expect(bad.body).toMatchObject({ error: 'bad_request', code: 'VALIDATION_FAILED' });
    } finally {
      await client.close();
    }
  });

  it("without manage_webhooks, none of the store's keys' requests", async () => {
    const ok = await logged('/api/v1/vendor/me', store.readWrite);
    const client = await connectWithToken(
      app.url,
      (await mintMcpToken(app, store.id, ['read_orders'])).access_token,
    );
    try {
      const answer = toolAnswer<ToolResponses['list_requests']>(
        await client.callTool({ name: 'list_requests', arguments: {} }),
      );
      expect(answer.isError).toBe(false);
      expect(answer.body.requests.map((r) => r.id)).not.toContain(ok);
      expect(answer.body.requests).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
