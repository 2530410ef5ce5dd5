import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { oas31 } from 'zod-openapi';
import { Stockless } from '../../client/src/client.ts';
import { addCodeSamples, type CodeSample } from '../../server/contract/code-samples.ts';
import { buildOpenApiDocument } from '../../server/contract/document.ts';
import { type OperationFacts, operationFacts } from '../../server/contract/operation-facts.ts';
import { describeOperation } from '../../server/contract/operations.ts';
import { readMethod, sdkMethods } from '../../server/contract/sdk-methods.ts';
import { STATUS_OF } from '../../src/errors.ts';

/**
 * The contract's request samples (`x-codeSamples`) and per-operation error texts: every operation
 * has a curl and a TypeScript sample, each SDK sample calls the client method of its operation and
 * compiles against the SDK, and every error status reads as its own operation's.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const BASE = 'http://localhost:3000';
const doc = buildOpenApiDocument(BASE);
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

interface Op {
  key: string;
  method: string;
  path: string;
  op: oas31.OperationObject;
}

const operations: Op[] = Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
  METHODS.flatMap((method) => {
    const op = item[method];
    return op ? [{ key: `${method.toUpperCase()} ${path}`, method, path, op }] : [];
  }),
);

const samplesOf = (op: oas31.OperationObject): CodeSample[] => op['x-codeSamples'] ?? [];

/** Every operation of the partner API the SDK covers today (new ones join by themselves). */
const SDK_OPERATIONS = [
  'listProducts',
  'getProductFacets',
  'getProduct',
  'getStore',
  'listMyProducts',
  'addMyProduct',
  'bulkAddMyProducts',
  'bulkRemoveMyProducts',
  'getMyProduct',
  'removeMyProduct',
  'setMyProductPricing',
  'setMyProductPurchaseMode',
  'setMyProductVendorFulfilled',
  'listOrders',
  'createWholesaleOrder',
  'getOrder',
  'getOrderInvoice',
  'listInventory',
  'postExternalOrder',
  'cancelExternalOrder',
  'listWebhooks',
  'createWebhook',
  'getWebhook',
  'updateWebhook',
  'deleteWebhook',
  'rotateWebhookSecret',
  'listWebhookDeliveries',
  'resendWebhookDelivery',
  'testWebhook',
  'advanceTestOrder',
  'cancelTestOrder',
];

describe('x-codeSamples', () => {
  it('gives every operation a curl sample and a TypeScript one', () => {
    expect(operations.length).toBeGreaterThan(30);
    for (const { key, op } of operations) {
      const samples = samplesOf(op);
      expect(
        samples.map((s) => [s.lang, s.label === 'fetch' ? 'SDK' : s.label]),
        key,
      ).toEqual([
        ['Shell', 'curl'],
        ['TypeScript', 'SDK'],
      ]);
      for (const s of samples) expect(s.source.trim(), key).not.toBe('');
    }
  });

  it('uses the SDK for every operation the client has a method for', () => {
    const sdk = sdkMethods();
    for (const id of SDK_OPERATIONS) expect(sdk.has(id), `the client has no method calling ${id}`).toBe(true);
    for (const { key, op } of operations) {
      const [, ts] = samplesOf(op);
      expect(ts?.label, key).toBe(sdk.has(op.operationId ?? '') ? 'SDK' : 'fetch');
    }
  });

  it('names, in each SDK sample, a client method that calls that very operation', () => {
    const client = new Stockless({ baseUrl: BASE, apiKey: 'sl_test_x' }) as unknown as Record<
      string,
      Record<string, unknown>
    >;
    for (const { key, op } of operations) {
      const sdk = samplesOf(op).find((s) => s.label === 'SDK');
      if (!sdk) continue;
      const [, group = '', method = ''] = /await stockless\.([\w.]+)\.(\w+)\(/.exec(sdk.source) ?? [];
      // A group may hold groups (`testHelpers.orders`).
      const members = group
        .split('.')
        .reduce<unknown>((g, name) => (g as Record<string, unknown>)?.[name], client);
      const fn = (members as Record<string, unknown> | undefined)?.[method];
      expect(typeof fn, `${key}: stockless.${group}.${method}`).toBe('function');
      expect(readMethod(String(fn))?.operationId, key).toBe(op.operationId);
    }
  });

  it('sends what the operation takes: method, example path, bearer key, headers and JSON body', () => {
    for (const { key, method, path, op } of operations) {
      const curl = samplesOf(op)[0]?.source ?? '';
      if (method !== 'get') expect(curl, key).toContain(`-X ${method.toUpperCase()} `);
      const literal = path.replace(/\{[^}]+\}/g, '[^/]+').replaceAll('.', '\\.');
      expect(curl, key).toMatch(new RegExp(`'${BASE}${literal}[?']`));
      expect(curl, key).not.toMatch(/\{\w+\}/);
      const bearer = (op.security ?? []).some((s) => 'ApiKey' in s);
      // The test helpers answer only a test key: their samples read it from a variable of its own.
      const variable = op.tags?.includes('Test helpers') ? 'STOCKLESS_TEST_API_KEY' : 'STOCKLESS_API_KEY';
      expect(curl.includes(`-H "Authorization: Bearer $${variable}"`), key).toBe(bearer);
      const body = /-d '([\s\S]*)'$/.exec(curl)?.[1];
      const json =
        op.requestBody && 'content' in op.requestBody && op.requestBody.content['application/json'];
      if (json) expect(() => JSON.parse(body ?? ''), key).not.toThrow();
      else expect(body, key).toBeUndefined();
    }
    const create = operations.find((o) => o.key === 'POST /api/v1/orders');
    const curl = create ? (samplesOf(create.op)[0]?.source ?? '') : '';
    expect(curl).toContain('-H "Idempotency-Key: $(od -An -N16 -tx1 /dev/urandom | tr -dc 0-9a-f)"');
    expect(JSON.parse(/-d '([\s\S]*)'$/.exec(curl)?.[1] ?? '')).toMatchObject({
      items: [{ product_id: 1042, quantity: 2 }],
    });
    const invoice = operations.find((o) => o.key === 'GET /api/v1/orders/{id}/invoice');
    expect(samplesOf(invoice?.op ?? {})[1]?.source).toContain('await stockless.orders.invoice(1)');
  });

  it('compiles every TypeScript sample against the SDK', { timeout: 120_000 }, () => {
    const dir = mkdtempSync(join(tmpdir(), 'stockless-samples-'));
    try {
      const files: string[] = [];
      for (const { op } of operations) {
        const ts = samplesOf(op)[1];
        if (!ts) continue;
        const file = `${op.operationId}.ts`;
        // A module each: every sample declares its own `stockless`.
        writeFileSync(
          join(dir, file),
          ts.source.includes('import ') ? ts.source : `${ts.source}export {};\n`,
        );
        files.push(file);
      }
      writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          extends: join(ROOT, 'examples/tsconfig.json'),
          compilerOptions: {
            typeRoots: [join(ROOT, 'node_modules/@types')],
            paths: { '@stockless/sdk': [join(ROOT, 'client/src/index.ts')] },
          },
          files,
        }),
      );
      const tsc = spawnSync(join(ROOT, 'node_modules/.bin/tsc'), ['-p', join(dir, 'tsconfig.json')], {
        encoding: 'utf8',
      });
      expect(`${tsc.stdout}${tsc.stderr}`).toBe('');
      expect(tsc.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives an operation it never saw samples too: fetch where the SDK has no method', () => {
    const fresh: oas31.OpenAPIObject = {
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      paths: {
        '/api/v1/events/{id}': {
          get: {
            operationId: 'getEventNobodyWrote',
            security: [{ ApiKey: [] }],
            parameters: [
              { in: 'path', name: 'id', required: true, schema: { type: 'integer', example: 52817 } },
              { in: 'query', name: 'expand', schema: { type: 'string', example: 'data' } },
              { in: 'header', name: 'Idempotency-Key', schema: { type: 'string', example: 'k' } },
            ],
            responses: { '200': { description: 'OK', content: { 'application/json': { schema: {} } } } },
          },
        },
      },
    };
    addCodeSamples(fresh, BASE, new Map());
    const [curl, ts] = samplesOf(fresh.paths?.['/api/v1/events/{id}']?.get ?? {});
    expect(curl?.source).toBe(
      `curl '${BASE}/api/v1/events/52817?expand=data' \\\n  -H "Authorization: Bearer $STOCKLESS_API_KEY" \\\n  -H "Idempotency-Key: $(od -An -N16 -tx1 /dev/urandom | tr -dc 0-9a-f)"`,
    );
    expect(ts?.label).toBe('fetch');
    expect(ts?.source).toContain(`${BASE}/api/v1/events/52817`);
    expect(ts?.source).toContain("expand: 'data'");
    expect(ts?.source).toContain("'Idempotency-Key': crypto.randomUUID()");
  });
});

describe('reading the client', () => {
  it('tells path, query and body arguments apart, and gives up on what it cannot read', () => {
    expect(
      readMethod("(id, deliveryId, o = {}) => this.#http.call('resend', { path: { id, deliveryId }, ...o })"),
    ).toEqual({
      operationId: 'resend',
      arguments: [
        { kind: 'path', name: 'id' },
        { kind: 'path', name: 'deliveryId' },
      ],
    });
    expect(
      readMethod(
        "(productId, body, o = {}) => this.#http.call('p', { path: { id: productId }, body, ...o })",
      ),
    ).toEqual({ operationId: 'p', arguments: [{ kind: 'path', name: 'id' }, { kind: 'body' }] });
    expect(readMethod("(o = {}) => this.#http.call('me', o)")).toEqual({ operationId: 'me', arguments: [] });
    expect(readMethod('(query = {}) => paginate(async (page) => list({ ...query, page }))')).toBeUndefined();
    expect(readMethod("(mystery) => this.#http.call('x', { body: other })")).toBeUndefined();
  });
});

describe('error responses', () => {
  const responsesOf = (key: string) =>
    (operations.find((o) => o.key === key)?.op.responses ?? {}) as Record<string, oas31.ResponseObject>;

  it("describe each operation's own errors, with the codes it answers", () => {
    expect(responsesOf('POST /api/v1/orders')['409']?.description).toMatch(
      /^The wholesale price changed \(`PRICE_CHANGED`\)/,
    );
    expect(responsesOf('POST /api/v1/orders')['404']?.description).toContain(
      '(`PRODUCT_NOT_FOUND`, `VARIANT_NOT_FOUND`)',
    );
    expect(responsesOf('GET /api/v1/orders/{id}')['404']?.description).toBe(
      'No such order in the store (`ORDER_NOT_FOUND`)',
    );
    expect(responsesOf('POST /api/v1/my-products')['409']?.description).toMatch(
      /^The product is already in the store.*\(`ALREADY_LISTED`\)/,
    );
    expect(responsesOf('GET /api/v1/vendor/webhooks/{id}')['404']?.description).toBe(
      'No such subscription in the store (`WEBHOOK_NOT_FOUND`)',
    );
    expect(responsesOf('GET /api/v1/vendor/me')['404']?.description).toContain('`STORE_NOT_FOUND`');
    // The texts trpc-to-openapi shared out across every operation are gone.
    const all = operations.flatMap(({ op }) => Object.values(op.responses ?? {}));
    const texts = all.map((r) => ('description' in r ? r.description : ''));
    expect(texts).not.toContain('Already in the store');
    expect(texts).not.toContain('No such product');
  });

  it('name every code their examples answer, each example of the status it is listed under', () => {
    for (const { key, op } of operations) {
      for (const [status, raw] of Object.entries(op.responses ?? {})) {
        const response = raw as oas31.ResponseObject;
        const media = response.content?.['application/json'];
        if (Number(status) < 400 || !media || !key.includes('/api/v1/') || key.includes('openapi.json'))
          continue;
        const examples = media.examples
          ? Object.values(media.examples).map((e) => ('value' in e ? e.value : undefined))
          : [media.example];
        for (const example of examples) {
          // 503 QUERY_TOO_EXPENSIVE is a server_error (as 500 is); every other category is its status.
          if (status !== '503')
            expect(STATUS_OF[example.error as keyof typeof STATUS_OF], key).toBe(Number(status));
          if (example.code) expect(response.description, `${key} ${status}`).toContain(`\`${example.code}\``);
        }
      }
    }
  });

  it("take a router operation's 404 and 409 from its docs, else its own meta, never another's", () => {
    const facts = operationFacts();
    for (const { key, op } of operations) {
      const f = facts.get(op.operationId ?? '');
      if (!f) continue;
      for (const status of ['404', '409'] as const) {
        const response = op.responses?.[status] as oas31.ResponseObject | undefined;
        if (!response) continue;
        const own = f.docs?.errors?.[status]?.description ?? f.errorTexts[status];
        // The Idempotency-Key adds its own 409 to writes that have none.
        if (!own && status === '409') continue;
        expect(own, `${key} ${status}: no docs`).toBeDefined();
        expect(response.description.startsWith(own ?? '?'), `${key} ${status}`).toBe(true);
      }
    }
  });

  it("reads an operation it never saw by its meta's text, else a neutral one", () => {
    const fresh = (errorTexts: Partial<Record<string, string>>) => {
      const op: oas31.OperationObject = {
        responses: {
          '200': { description: 'Successful response' },
          '404': { description: 'No such product' },
          '409': { description: 'Already in the store' },
        },
      };
      const facts: OperationFacts = {
        successStatus: undefined,
        appScope: 'read_orders',
        rateLimited: false,
        errorTexts,
        docs: undefined,
      };
      describeOperation(doc, 'get', op, facts);
      return op.responses as Record<string, oas31.ResponseObject>;
    };
    const named = fresh({ 404: 'No such event', 409: 'Replayed' });
    expect([named['404']?.description, named['409']?.description]).toEqual(['No such event', 'Replayed']);
    expect(named['404']?.content?.['application/json']?.example).toMatchObject({
      error: 'not_found',
      message: 'No such event',
    });
    const bare = fresh({});
    expect([bare['404']?.description, bare['409']?.description]).toEqual(['Not found', 'Conflict']);
  });
});
