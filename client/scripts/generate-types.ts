/**
 * Generates client/src/generated/openapi-types.ts from the committed contract (openapi.json):
 * one named type per component schema, and per operation its path parameters, query, JSON body
 * and success response, plus the `operations` table (method and path) the client is built on.
 *
 *   npm run sdk:types
 *
 * Schemas become TypeScript with json-schema-to-typescript; `$ref`s to components become references
 * to their named types; objects are closed (a misspelt field is a compile error) unless the contract
 * says otherwise. The output is formatted with the project's Biome, so the file is byte-for-byte
 * reproducible and test/sdk.test.ts can fail when it is stale.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile, type JSONSchema } from 'json-schema-to-typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const CONTRACT_FILE = resolve(ROOT, 'openapi.json');
export const TYPES_FILE = resolve(ROOT, 'client/src/generated/openapi-types.ts');

type Schema = Record<string, unknown>;
interface Parameter {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  required?: boolean;
  description?: string;
  schema?: Schema;
}
interface MediaType {
  schema?: Schema;
}
interface Operation {
  operationId?: string;
  summary?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, MediaType> };
  responses?: Record<string, { content?: Record<string, MediaType> }>;
}
interface OpenApiDocument {
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
  webhooks?: Record<string, Record<string, Operation>>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'] as const;
const COMPONENT_REF = '#/components/schemas/';

const pascal = (s: string) =>
  s
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]?.toUpperCase() + w.slice(1))
    .join('');

/** A component's type name; one that would shadow a global (`Error`) gets a `Body` suffix. */
const componentName = (name: string) => (pascal(name) in globalThis ? `${pascal(name)}Body` : pascal(name));

/** `$ref` to a component → its named type; schema `title`s dropped so nothing else gets a name. */
function prepare(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(prepare);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith(COMPONENT_REF)) {
      out.tsType = componentName(value.slice(COMPONENT_REF.length));
    } else if (key === 'title' && typeof value === 'string') {
      // a schema keyword (a property called "title" is an object and is kept)
    } else if (key === 'properties' && value && typeof value === 'object') {
      out.properties = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, prepare(s)]));
    } else {
      out[key] = prepare(value);
    }
  }
  return out;
}

async function declare(name: string, schema: unknown, description?: string): Promise<string> {
  const root = prepare(schema) as Schema;
  if (description && !root.description) root.description = description;
  return compile(root as JSONSchema, name, {
    bannerComment: '',
    format: false,
    additionalProperties: false,
    ignoreMinAndMaxItems: true,
    strictIndexSignatures: true,
    unknownAny: true,
    declareExternallyReferenced: false,
    enableConstEnums: false,
    $refOptions: { resolve: { external: false } },
  });
}

function paramsSchema(params: Parameter[]): Schema {
  return {
    type: 'object',
    properties: Object.fromEntries(
      params.map((p) => [p.name, { ...p.schema, ...(p.description ? { description: p.description } : {}) }]),
    ),
    required: params.filter((p) => p.required).map((p) => p.name),
    additionalProperties: false,
  };
}

function successOf(op: Operation): { status: string; content?: Record<string, MediaType> } | undefined {
  const entry = Object.entries(op.responses ?? {}).find(([status]) => /^2\d\d$/.test(status));
  return entry && { status: entry[0], content: entry[1].content };
}

/** The generated module's text (formatted), from a parsed contract. */
export async function generateTypes(doc: OpenApiDocument): Promise<string> {
  const parts: string[] = [
    `/**\n * Generated from openapi.json (${doc.info.title} ${doc.info.version}) by client/scripts/generate-types.ts.\n * Do not edit: run \`npm run sdk:types\`.\n */\n`,
    `/** The contract version these types were generated from. */\nexport const CONTRACT_VERSION = ${JSON.stringify(doc.info.version)};\n`,
  ];

  parts.push('// Components\n');
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
    parts.push(await declare(componentName(name), schema));
  }

  const table: string[] = [];
  const runtime: string[] = [];
  parts.push('// Operations\n');
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op?.operationId) continue;
      const base = pascal(op.operationId);
      const params = op.parameters ?? [];
      const types = { path: 'never', query: 'never', body: 'never', response: 'void' };
      const pathParams = params.filter((p) => p.in === 'path');
      const queryParams = params.filter((p) => p.in === 'query');
      if (pathParams.length) {
        types.path = `${base}PathParams`;
        parts.push(
          await declare(types.path, paramsSchema(pathParams), `Path parameters of ${op.operationId}.`),
        );
      }
      if (queryParams.length) {
        types.query = `${base}Query`;
        parts.push(await declare(types.query, paramsSchema(queryParams), `Query of ${op.operationId}.`));
      }
      const body = op.requestBody?.content?.['application/json']?.schema;
      if (body) {
        types.body = `${base}Body`;
        parts.push(await declare(types.body, body, `Request body of ${op.operationId}.`));
      }
      const success = successOf(op);
      const json = success?.content?.['application/json']?.schema;
      let responseKind = 'json';
      if (json) {
        types.response = `${base}Response`;
        parts.push(
          await declare(types.response, json, `Response of ${op.operationId} (${success?.status}).`),
        );
      } else if (success?.content && Object.keys(success.content).length > 0) {
        types.response = 'Uint8Array';
        responseKind = 'bytes';
      }
      const upper = method.toUpperCase();
      table.push(
        `  ${op.operationId}: { method: '${upper}'; path: '${path}'; pathParams: ${types.path}; query: ${types.query}; body: ${types.body}; bodyRequired: ${Boolean(op.requestBody?.required)}; response: ${types.response} };`,
      );
      runtime.push(
        `  ${op.operationId}: { method: '${upper}', path: '${path}', response: '${responseKind}' },`,
      );
    }
  }
  parts.push(
    `/** Every operation of the contract: its types. */\nexport interface Operations {\n${table.join('\n')}\n}\n`,
    `/** Every operation of the contract: method, path template and response kind. */\nexport const operations = {\n${runtime.join('\n')}\n} as const;\n`,
  );

  const events: string[] = [];
  for (const [event, item] of Object.entries(doc.webhooks ?? {})) {
    const schema = item.post?.requestBody?.content?.['application/json']?.schema;
    if (!schema) continue;
    const name = `${pascal(event)}Event`;
    parts.push(await declare(name, schema, `Payload of the \`${event}\` webhook.`));
    events.push(`  '${event}': ${name};`);
  }
  parts.push(
    events.length
      ? `/** Webhook payloads by event name. */\nexport interface WebhookPayloads {\n${events.join('\n')}\n}\n`
      : '/** Webhook payloads by event name (the contract declares none yet). */\nexport type WebhookPayloads = Record<never, never>;\n',
  );

  return format(parts.join('\n'));
}

function format(source: string): string {
  const biome = resolve(ROOT, 'node_modules/.bin/biome');
  const result = spawnSync(biome, ['format', `--stdin-file-path=${relative(ROOT, TYPES_FILE)}`], {
    cwd: ROOT,
    input: source,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`biome format failed: ${result.stderr || result.stdout}`);
  return result.stdout;
}

export function readContract(): OpenApiDocument {
  return JSON.parse(readFileSync(CONTRACT_FILE, 'utf8')) as OpenApiDocument;
}

if (import.meta.main) {
  const text = await generateTypes(readContract());
  writeFileSync(TYPES_FILE, text);
  console.log(`wrote ${relative(process.cwd(), TYPES_FILE)} (${text.length} bytes)`);
}
