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
 * reproducible and test/sdk/sdk.test.ts can fail when it is stale.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import type { oas31, Schema } from './shared.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const CONTRACT_FILE = resolve(ROOT, 'openapi.json');
export const TYPES_FILE = resolve(ROOT, 'client/src/generated/openapi-types.ts');

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
  const out: Record<string, unknown> = {};
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

async function declare(name: string, schema: Schema, description?: string): Promise<string> {
  // json-schema-to-typescript reads OpenAPI 3.1 schemas, which are JSON Schema (2020-12) with `tsType`s added.
  const root = prepare(schema) as JSONSchema;
  if (description && !root.description) root.description = description;
  return compile(root, name, {
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

function paramsSchema(params: oas31.ParameterObject[]): oas31.SchemaObject {
  return {
    type: 'object',
    properties: Object.fromEntries(
      params.map((p) => [p.name, { ...p.schema, ...(p.description ? { description: p.description } : {}) }]),
    ),
    required: params.filter((p) => p.required).map((p) => p.name),
    additionalProperties: false,
  };
}

function successOf(op: oas31.OperationObject): { status: string; content?: oas31.ContentObject } | undefined {
  const entry = Object.entries(op.responses ?? {}).find(([status]) => /^2\d\d$/.test(status));
  return entry && { status: entry[0], content: entry[1].content };
}

/** The generated module's text (formatted), from a parsed contract. */
export async function generateTypes(doc: oas31.OpenAPIObject): Promise<string> {
  const parts: string[] = [
    // Names the generator's first home: the header is part of the generated file, which stays byte-identical.
    `/**\n * Generated from openapi.json (${doc.info.title} ${doc.info.version}) by client/scripts/generate-types.ts.\n * Do not edit: run \`npm run sdk:types\`.\n */\n`,
    `/** The contract version these types were generated from. */\nexport const CONTRACT_VERSION = ${JSON.stringify(doc.info.version)};\n`,
  ];
  parts.push('// Components\n');
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
    parts.push(await declare(componentName(name), schema));
  }
  parts.push(...(await operationTypes(doc)));
  parts.push(...(await webhookTypes(doc)));
  return format(parts.join('\n'));
}

/** An operation's declarations and its rows of the `Operations` type and the `operations` table. */
interface OperationParts {
  declarations: string[];
  type: string;
  runtime: string;
}

async function operationTypes(doc: oas31.OpenAPIObject): Promise<string[]> {
  const parts: string[] = ['// Operations\n'];
  const table: string[] = [];
  const runtime: string[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op?.operationId) continue;
      const made = await operationParts(path, method, op, op.operationId);
      parts.push(...made.declarations);
      table.push(made.type);
      runtime.push(made.runtime);
    }
  }
  parts.push(
    `/** Every operation of the contract: its types. */\nexport interface Operations {\n${table.join('\n')}\n}\n`,
    `/** Every operation of the contract: method, path template and response kind. */\nexport const operations = {\n${runtime.join('\n')}\n} as const;\n`,
  );
  return parts;
}

async function operationParts(
  path: string,
  method: string,
  op: oas31.OperationObject,
  operationId: string,
): Promise<OperationParts> {
  const declarations: string[] = [];
  const base = pascal(operationId);
  // The contract's operations declare their parameters in place (no `$ref`s), as trpc-to-openapi writes them.
  const params = (op.parameters ?? []).filter((p): p is oas31.ParameterObject => !('$ref' in p));
  const types = { path: 'never', query: 'never', body: 'never', response: 'void' };
  const pathParams = params.filter((p) => p.in === 'path');
  const queryParams = params.filter((p) => p.in === 'query');
  if (pathParams.length) {
    types.path = `${base}PathParams`;
    declarations.push(
      await declare(types.path, paramsSchema(pathParams), `Path parameters of ${operationId}.`),
    );
  }
  if (queryParams.length) {
    types.query = `${base}Query`;
    declarations.push(await declare(types.query, paramsSchema(queryParams), `Query of ${operationId}.`));
  }
  const requestBody = op.requestBody && 'content' in op.requestBody ? op.requestBody : undefined;
  const body = requestBody?.content['application/json']?.schema;
  if (body) {
    types.body = `${base}Body`;
    declarations.push(await declare(types.body, body, `Request body of ${operationId}.`));
  }
  const success = successOf(op);
  const json = success?.content?.['application/json']?.schema;
  let responseKind = 'json';
  if (json) {
    types.response = `${base}Response`;
    declarations.push(
      await declare(types.response, json, `Response of ${operationId} (${success?.status}).`),
    );
  } else if (success?.content && Object.keys(success.content).length > 0) {
    types.response = 'Uint8Array';
    responseKind = 'bytes';
  }
  const upper = method.toUpperCase();
  return {
    declarations,
    type: `  ${operationId}: { method: '${upper}'; path: '${path}'; pathParams: ${types.path}; query: ${types.query}; body: ${types.body}; bodyRequired: ${Boolean(requestBody?.required)}; response: ${types.response} };`,
    runtime: `  ${operationId}: { method: '${upper}', path: '${path}', response: '${responseKind}' },`,
  };
}

async function webhookTypes(doc: oas31.OpenAPIObject): Promise<string[]> {
  const parts: string[] = [];
  const events: string[] = [];
  for (const [event, item] of Object.entries(doc.webhooks ?? {})) {
    const requestBody = item.post?.requestBody;
    const schema =
      requestBody && 'content' in requestBody ? requestBody.content['application/json']?.schema : undefined;
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
  return parts;
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

export function readContract(): oas31.OpenAPIObject {
  return JSON.parse(readFileSync(CONTRACT_FILE, 'utf8'));
}

if (import.meta.main) {
  const text = await generateTypes(readContract());
  writeFileSync(TYPES_FILE, text);
  console.log(`wrote ${relative(process.cwd(), TYPES_FILE)} (${text.length} bytes)`);
}
