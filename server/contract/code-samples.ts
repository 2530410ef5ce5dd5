import type { OperationFacts } from './operation-facts.ts';
import { sampleOf } from './sample.ts';
import { type SdkMethod, sdkMethods } from './sdk-methods.ts';
import { isObject, type oas31, pointer } from './shared.ts';

/**
 * Request samples of every operation (`x-codeSamples`, which Redoc shows beside it): curl, and the
 * TypeScript SDK's call, both made from the operation as the document describes it: its method and
 * path, its parameters' examples, the docs' sample query and the request body's example. The SDK
 * call is the method client/src exposes for the operation (sdk-methods.ts), with the arguments it
 * takes; an operation the SDK has no method for gets a fetch call instead (label `fetch`).
 */

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

/** The environment variable the samples read the API key from. */
export const API_KEY_VARIABLE = 'STOCKLESS_API_KEY';
/** Where the test helpers' samples read the key from: they answer only an `sl_test_` key. */
export const TEST_KEY_VARIABLE = 'STOCKLESS_TEST_API_KEY';

/**
 * Header parameters whose value must be new on every request: a copied sample makes one up rather
 * than send the example (one Idempotency-Key on two different requests is refused). The SDK sends
 * its own.
 */
const FRESH_HEADERS: Record<string, { shell: string; ts: string }> = {
  // 16 random bytes in hex from od and tr, which every POSIX shell has (uuidgen is often missing).
  'idempotency-key': { shell: '$(od -An -N16 -tx1 /dev/urandom | tr -dc 0-9a-f)', ts: 'crypto.randomUUID()' },
};

/** Longest line a sample is laid out for. */
const WIDTH = 80;

export interface CodeSample {
  lang: 'Shell' | 'TypeScript';
  label: 'curl' | 'SDK' | 'fetch';
  source: string;
}

/** One request of an operation, with example values. */
interface SampleRequest {
  method: string;
  /** The full URL, path parameters and query filled in. */
  url: string;
  pathValues: Record<string, unknown>;
  query: Record<string, unknown> | undefined;
  /** Header parameters (an Idempotency-Key, …), by name, with their example. */
  headers: [string, string][];
  /** The URL without its query. */
  base: string;
  body: { type: string; value: unknown } | undefined;
  /** Sends the API key as a bearer token. */
  bearer: boolean;
  /** The environment variable that holds that key. */
  keyVariable: string;
  /** Where a non-JSON answer (a PDF) is saved, e.g. `invoice.pdf`. */
  download: string | undefined;
  /** The example of a JSON success answer. */
  answer: unknown;
  /** The success is a redirect (`Location` is the answer). */
  redirect: boolean;
}

export function addCodeSamples(
  doc: oas31.OpenAPIObject,
  baseUrl: string,
  facts: Map<string, OperationFacts>,
): void {
  const sdk = sdkMethods();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const own = facts.get(op.operationId ?? '');
      const request = sampleRequest(doc, baseUrl, path, method, op, own?.docs?.sampleQuery);
      const call = sdk.get(op.operationId ?? '');
      const samples: CodeSample[] = [
        { lang: 'Shell', label: 'curl', source: curlSample(request) },
        call
          ? { lang: 'TypeScript', label: 'SDK', source: sdkSample(request, call, baseUrl) }
          : { lang: 'TypeScript', label: 'fetch', source: fetchSample(request) },
      ];
      op['x-codeSamples'] = samples;
    }
  }
}

function resolved<T>(doc: oas31.OpenAPIObject, value: T | oas31.ReferenceObject | undefined): T | undefined {
  let v: unknown = value;
  for (let i = 0; isObject(v) && typeof v.$ref === 'string' && i < 10; i++) v = pointer(doc, v.$ref);
  return v as T | undefined;
}

/** A parameter's example: its own, its schema's, else (`sampled`) one built from its schema. */
function exampleOf(doc: oas31.OpenAPIObject, p: oas31.ParameterObject, sampled: boolean): unknown {
  if (p.example !== undefined) return p.example;
  const first = Object.values(p.examples ?? {})[0];
  const value = resolved<oas31.ExampleObject>(doc, first)?.value;
  if (value !== undefined) return value;
  const schema = resolved<oas31.SchemaObject>(doc, p.schema);
  if (schema?.example !== undefined) return schema.example;
  if (Array.isArray(schema?.examples) && schema.examples.length) return schema.examples[0];
  return sampled ? sampleOf(doc, p.schema) : undefined;
}

function sampleRequest(
  doc: oas31.OpenAPIObject,
  baseUrl: string,
  path: string,
  method: string,
  op: oas31.OperationObject,
  sampleQuery: object | undefined,
): SampleRequest {
  const params = (op.parameters ?? []).flatMap((raw) => {
    const p = resolved<oas31.ParameterObject>(doc, raw);
    return p?.name ? [p] : [];
  });
  const pathValues: Record<string, unknown> = {};
  let query: Record<string, unknown> | undefined;
  const headers: [string, string][] = [];
  for (const p of params) {
    if (p.in === 'path') pathValues[p.name] = exampleOf(doc, p, true);
    if (p.in === 'query' && !sampleQuery) {
      const value = exampleOf(doc, p, p.required === true);
      if (value !== undefined) query = { ...query, [p.name]: value };
    }
    if (p.in === 'header' && p.name.toLowerCase() !== 'authorization') {
      const value = exampleOf(doc, p, p.required === true);
      if (value !== undefined) headers.push([p.name, String(value)]);
    }
  }
  if (sampleQuery) {
    const given = Object.entries(sampleQuery).filter(([, v]) => v !== undefined);
    if (given.length) query = Object.fromEntries(given);
  }
  const filled = path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    encodeURIComponent(String(pathValues[name] ?? name)),
  );
  const search = queryString(query);
  const security = op.security ?? doc.security ?? [];
  const success = Object.entries(op.responses ?? {}).find(([status]) => /^[23]\d\d$/.test(status));
  const response = resolved<oas31.ResponseObject>(doc, success?.[1]);
  const types = Object.keys(response?.content ?? {});
  const json = response?.content?.['application/json'];
  return {
    method: method.toUpperCase(),
    url: `${baseUrl}${filled}${search ? `?${search}` : ''}`,
    base: `${baseUrl}${filled}`,
    pathValues,
    query,
    headers,
    body: bodyOf(doc, op),
    bearer: security.some((s) => 'ApiKey' in s),
    keyVariable: op.tags?.includes('Test helpers') ? TEST_KEY_VARIABLE : API_KEY_VARIABLE,
    download: types.length && !json ? downloadName(path, types[0] ?? '') : undefined,
    answer: json ? (json.example ?? sampleOf(doc, json.schema)) : undefined,
    redirect: /^3/.test(success?.[0] ?? ''),
  };
}

function queryString(query: Record<string, unknown> | undefined): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    for (const v of Array.isArray(value) ? value : [value]) search.append(key, String(v));
  }
  return search.toString();
}

/** The request body's example: the first named one, the example, else one built from the schema. */
function bodyOf(doc: oas31.OpenAPIObject, op: oas31.OperationObject): SampleRequest['body'] {
  const body = resolved<oas31.RequestBodyObject>(doc, op.requestBody);
  const content = body?.content ?? {};
  const type = ['application/json', 'application/x-www-form-urlencoded'].find((t) => t in content);
  const media = type ? content[type] : undefined;
  if (!type || !media) return undefined;
  const named = resolved<oas31.ExampleObject>(doc, Object.values(media.examples ?? {})[0])?.value;
  return { type, value: named ?? media.example ?? sampleOf(doc, media.schema) };
}

/** `/api/v1/orders/{id}/invoice` answering `application/pdf` → `invoice.pdf`. */
function downloadName(path: string, type: string): string {
  const name =
    path
      .split('/')
      .filter((s) => s && !s.startsWith('{'))
      .at(-1) ?? 'answer';
  const ext = type.split('/')[1]?.split(/[;+]/)[0] ?? 'bin';
  return `${name}.${ext === 'octet-stream' ? 'bin' : ext}`;
}

// curl

const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

function curlSample(r: SampleRequest): string {
  const method = r.method === 'GET' ? '' : `-X ${r.method} `;
  // A long query is spelt out a parameter a line (`-G` puts them back in the URL).
  const spelt = r.query && r.url.length > WIDTH - 10;
  const lines = [`curl ${spelt ? '-G ' : method}${shellQuote(spelt ? r.base : r.url)}`];
  if (spelt) {
    for (const [key, value] of Object.entries(r.query ?? {}))
      for (const v of Array.isArray(value) ? value : [value])
        lines.push(`--data-urlencode ${shellQuote(`${key}=${String(v)}`)}`);
  }
  if (r.bearer) lines.push(`-H "Authorization: Bearer $${r.keyVariable}"`);
  for (const [name, value] of r.headers) {
    const fresh = FRESH_HEADERS[name.toLowerCase()];
    lines.push(fresh ? `-H "${name}: ${fresh.shell}"` : `-H ${shellQuote(`${name}: ${value}`)}`);
  }
  if (r.body?.type === 'application/json') {
    lines.push(`-H 'Content-Type: application/json'`);
    lines.push(`-d ${shellQuote(JSON.stringify(r.body.value, null, 2))}`);
  } else if (r.body && isObject(r.body.value)) {
    for (const [key, value] of Object.entries(r.body.value))
      lines.push(`--data-urlencode ${shellQuote(`${key}=${String(value)}`)}`);
  }
  if (r.download) lines.push(`-o ${shellQuote(r.download)}`);
  if (r.redirect) lines.push('-i');
  return lines.join(' \\\n  ');
}

// TypeScript

function sdkSample(r: SampleRequest, call: SdkMethod, baseUrl: string): string {
  const values = call.arguments.map((a) => {
    if (a.kind === 'path') return r.pathValues[a.name];
    if (a.kind === 'query') return r.query;
    return r.body?.value;
  });
  while (values.length && values.at(-1) === undefined) values.pop();
  const imports = ["import { Stockless } from '@stockless/sdk';"];
  let result: string;
  let after: string;
  if (r.download) {
    imports.unshift("import { writeFile } from 'node:fs/promises';");
    result = 'const bytes';
    after = `await writeFile(${tsString(r.download)}, bytes);`;
  } else {
    const keys = isObject(r.answer) && !Array.isArray(r.answer) ? Object.keys(r.answer) : [];
    const names = keys.length > 0 && keys.length <= 3 && keys.every(isPlainName) ? keys : ['answer'];
    result = names[0] === 'answer' ? 'const answer' : `const { ${names.join(', ')} }`;
    after = `console.log(${names.join(', ')});`;
  }
  const head = `${result} = await stockless.${call.group}.${call.method}(`;
  return [
    ...imports,
    '',
    'const stockless = new Stockless({',
    `  baseUrl: ${tsString(baseUrl)},`,
    `  apiKey: process.env.${r.keyVariable}!,`,
    '});',
    '',
    `${head}${callArguments(values, head.length)});`,
    after,
    '',
  ].join('\n');
}

/** Arguments on the call's line when they fit, else the last one laid out over several lines. */
function callArguments(values: unknown[], used: number): string {
  const inline = values.map((v) => tsLiteral(v ?? {}, '', Number.POSITIVE_INFINITY)).join(', ');
  if (used + inline.length + 2 <= WIDTH) return inline;
  return values.map((v, i) => tsLiteral(v ?? {}, '', i === values.length - 1 ? 0 : WIDTH)).join(', ');
}

function fetchSample(r: SampleRequest): string {
  const headers: [string, string][] = r.headers.map(([k, v]) => [
    k,
    FRESH_HEADERS[k.toLowerCase()]?.ts ?? tsString(v),
  ]);
  if (r.bearer) headers.unshift(['Authorization', `\`Bearer \${process.env.${r.keyVariable}}\``]);
  let body: string | undefined;
  if (r.body?.type === 'application/json') {
    headers.push(['Content-Type', "'application/json'"]);
    body = `JSON.stringify(${tsLiteral(r.body.value, '  ', WIDTH - 24)})`;
  } else if (r.body) {
    const fields = isObject(r.body.value)
      ? Object.fromEntries(Object.entries(r.body.value).map(([k, v]) => [k, String(v)]))
      : {};
    body = `new URLSearchParams(${tsLiteral(fields, '  ', WIDTH - 28)})`;
  }
  const init: string[] = [];
  if (r.method !== 'GET') init.push(`  method: '${r.method}',`);
  if (headers.length) {
    const line = `  headers: { ${headers.map(([k, v]) => `${propertyName(k)}: ${v}`).join(', ')} },`;
    init.push(
      line.length <= WIDTH
        ? line
        : `  headers: {\n${headers.map(([k, v]) => `    ${propertyName(k)}: ${v},`).join('\n')}\n  },`,
    );
  }
  if (body) init.push(`  body: ${body},`);
  if (r.redirect) init.push(`  redirect: 'manual',`);
  const result = r.redirect
    ? "response.headers.get('location')"
    : r.answer !== undefined
      ? 'await response.json()'
      : 'await response.text()';
  // A long query is built with URLSearchParams.
  const spelt = r.query && r.url.length > WIDTH - 30;
  const query = spelt
    ? [`const query = new URLSearchParams(${tsLiteral(stringValues(r.query ?? {}), '', WIDTH - 36)});`]
    : [];
  const url = spelt ? `\`${r.base}?\${query}\`` : tsString(r.url);
  return [
    '// Not a method of the SDK (@stockless/sdk): a plain fetch.',
    ...query,
    `const response = await fetch(${url}${init.length ? `, {\n${init.join('\n')}\n}` : ''});`,
    `console.log(response.status, ${result});`,
    '',
  ].join('\n');
}

/** Query values as URLSearchParams takes them: a record, or pairs where a list repeats a key. */
function stringValues(query: Record<string, unknown>): Record<string, string> | [string, string][] {
  const pairs = Object.entries(query).flatMap(([k, v]) =>
    (Array.isArray(v) ? v : [v]).map((one): [string, string] => [k, String(one)]),
  );
  const keys = new Set(pairs.map(([k]) => k));
  return keys.size === pairs.length ? Object.fromEntries(pairs) : pairs;
}

const RESERVED = new Set(
  'break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package private protected public await'.split(
    ' ',
  ),
);

const isPlainName = (key: string) => /^[A-Za-z_$][\w$]*$/.test(key) && !RESERVED.has(key);
const propertyName = (key: string) => (/^[A-Za-z_$][\w$]*$/.test(key) ? key : tsString(key));
const tsString = (text: string) =>
  `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'").replaceAll('\n', '\\n').replaceAll('\r', '\\r')}'`;

/**
 * A JSON value as a TypeScript literal: on one line when it fits in `width` from `indent`, else
 * one entry a line, indented from `indent`.
 */
function tsLiteral(value: unknown, indent: string, width = WIDTH): string {
  if (typeof value === 'string') return tsString(value);
  if (value === null || typeof value !== 'object') return String(value);
  const inner = `${indent}  `;
  const entries = Array.isArray(value)
    ? value.map((v) => tsLiteral(v, inner, WIDTH - 1))
    : Object.entries(value).map(
        ([k, v]) => `${propertyName(k)}: ${tsLiteral(v, inner, WIDTH - k.length - 3)}`,
      );
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{ ', ' }'];
  if (entries.length === 0) return Array.isArray(value) ? '[]' : '{}';
  const line = `${open}${entries.join(', ')}${close}`;
  if (!line.includes('\n') && indent.length + line.length <= width) return line;
  return `${open.trim()}\n${entries.map((e) => `${inner}${e},`).join('\n')}\n${indent}${close.trim()}`;
}
