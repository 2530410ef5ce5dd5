import fc from 'fast-check';
import type { oas31 } from 'zod-openapi';

/**
 * Hostile requests generated from the OpenAPI document: every operation it lists is fuzzed without
 * a line of test code of its own. Values are drawn near the schema (its examples, enums and bounds,
 * so requests get past the first check and reach deeper ones) and far from it (wrong types, boundary
 * numbers, text PostgreSQL cannot store, prototype names, nesting, size).
 */

/** An OpenAPI 3.1 schema with every `$ref` replaced by what it names (`deref`), as the fuzzer reads it. */
export interface Schema extends Omit<oas31.SchemaObject, 'anyOf' | 'oneOf' | 'items' | 'properties'> {
  anyOf?: Schema[];
  oneOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
}

export interface Operation {
  id: string;
  method: string;
  path: string;
  params: { name: string; in: 'query' | 'path'; schema: Schema }[];
  body?: { type: string; schema: Schema; example?: unknown };
}

const isRef = (x: unknown): x is oas31.ReferenceObject => Boolean((x as { $ref?: unknown } | null)?.$ref);

/** The component a local `$ref` names (`#/components/<kind>/<name>`: a schema, a parameter, …). */
const named = (doc: oas31.OpenAPIObject, ref: string) => {
  const [kind, name] = ref.replace('#/components/', '').split('/');
  const components = (doc.components ?? {}) as Record<string, Record<string, unknown> | undefined>;
  return components[kind ?? '']?.[name ?? ''];
};

export function operationsOf(doc: oas31.OpenAPIObject): Operation[] {
  const out: Operation[] = [];
  const resolve = <T>(s: T | oas31.ReferenceObject): T => (isRef(s) ? resolve(named(doc, s.$ref) as T) : s);
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, value] of Object.entries(item as Record<string, unknown>)) {
      // A method's operation; any other field of the path item has no operationId and is skipped.
      const op = value as oas31.OperationObject | undefined;
      if (!op?.operationId) continue;
      const params = (op.parameters ?? [])
        .map((p) => resolve(p))
        .filter((p) => p.in === 'query' || p.in === 'path')
        .map((p) => ({ name: p.name, in: p.in as 'query' | 'path', schema: deref(doc, p.schema) }));
      const requestBody = isRef(op.requestBody) ? undefined : op.requestBody;
      const content = Object.entries(requestBody?.content ?? {})[0];
      out.push({
        id: op.operationId,
        method: method.toUpperCase(),
        path,
        params,
        body: content && {
          type: content[0],
          schema: deref(doc, content[1].schema),
          example: content[1].example,
        },
      });
    }
  }
  return out;
}

/** The schema with every `$ref` replaced by what it names (the document has no cycles). */
function deref(doc: oas31.OpenAPIObject, s: oas31.SchemaObject | oas31.ReferenceObject | undefined): Schema {
  return derefJson(doc, s) as Schema;
}

function derefJson(doc: oas31.OpenAPIObject, s: unknown): unknown {
  if (Array.isArray(s)) return s.map((x: unknown) => derefJson(doc, x));
  if (!s || typeof s !== 'object') return s;
  if (isRef(s)) return derefJson(doc, named(doc, s.$ref));
  return Object.fromEntries(Object.entries(s).map(([k, v]) => [k, derefJson(doc, v)]));
}

/** Names an object or a query parser may trip on. */
export const PROTOTYPE_NAMES = [
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'toString',
  'valueOf',
  '__defineGetter__',
  'isPrototypeOf',
];

/** Any UTF-16 code units, lone surrogates and NUL included. */
const codeUnits = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) });

export const hostileText: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '\u0000',
      'a\u0000b',
      '\ud800',
      'x\udfff',
      '\udc00\ud800',
      '\u202eevil',
      '\ufeff',
      '💥',
      '%00',
      "'; DROP TABLE x;--",
      '{{x}}$(x)#{x}',
      '../../etc/passwd',
      '\\',
      '"',
      'null',
      'true',
      '-1',
      '1e309',
      '0x10',
    ),
  },
  { weight: 3, arbitrary: codeUnits },
  { weight: 2, arbitrary: fc.string({ unit: 'binary' }) },
  // Past every length limit; the largest make a request line past Node's 16 KB header limit.
  { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 20_000 }).map((n) => 'x'.repeat(n)) },
);

export const boundaryNumbers = fc.constantFrom(
  0,
  -0,
  -1,
  1,
  0.5,
  1e-7,
  100,
  10_000,
  10_001,
  2_147_483_647,
  2_147_483_648,
  -2_147_483_649,
  2 ** 53 + 2,
  1e308,
);

const anyJson = fc.jsonValue({ maxDepth: 3 });

/** A value near the schema: its example or default, an enum member, a number within bounds… */
function nearValue(s: Schema, depth: number): fc.Arbitrary<unknown> {
  const options: fc.Arbitrary<unknown>[] = [];
  if (s.example !== undefined) options.push(fc.constant(s.example));
  if (s.default !== undefined) options.push(fc.constant(s.default));
  if (s.enum) options.push(fc.constantFrom(...s.enum));
  const choices = s.anyOf ?? s.oneOf;
  if (choices) options.push(...choices.map((x) => valueFor(x, depth)));
  const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  for (const type of types) {
    if (type === 'integer' || type === 'number') {
      const min = s.minimum ?? -1000;
      const max = s.maximum ?? 1_000_000;
      options.push(fc.integer({ min: Math.max(min, -2_147_483_648), max: Math.min(max, 2_147_483_647) }));
      options.push(fc.constantFrom(min - 1, max + 1, min, max));
    } else if (type === 'string') {
      options.push(fc.string({ minLength: s.minLength ?? 0, maxLength: s.maxLength ?? 40 }));
      if (s.maxLength) options.push(fc.constant('x'.repeat(s.maxLength + 1)));
    } else if (type === 'boolean') options.push(fc.boolean());
    else if (type === 'null') options.push(fc.constant(null));
    else if (type === 'array' && depth < 4) {
      options.push(fc.array(valueFor(s.items ?? {}, depth + 1), { maxLength: Math.min(s.maxItems ?? 5, 5) }));
    } else if (type === 'object' && depth < 4) options.push(objectFor(s, depth + 1));
  }
  return options.length ? fc.oneof(...options) : anyJson;
}

/** Mostly near the schema, sometimes far from it. */
export function valueFor(s: Schema, depth = 0): fc.Arbitrary<unknown> {
  return fc.oneof(
    { arbitrary: nearValue(s, depth), weight: 6 },
    { arbitrary: hostileText, weight: 1 },
    { arbitrary: boundaryNumbers, weight: 1 },
    { arbitrary: anyJson, weight: 1 },
  );
}

/** An object of the schema's properties (each may be left out), sometimes with extra keys. */
export function objectFor(s: Schema, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const props = Object.fromEntries(
    Object.entries(s.properties ?? {}).map(([k, v]) => [k, valueFor(v, depth)]),
  );
  const extras = fc.dictionary(fc.oneof(fc.constantFrom(...PROTOTYPE_NAMES), fc.string()), anyJson, {
    maxKeys: 3,
  });
  return fc
    .tuple(fc.record(props, { requiredKeys: [] }), fc.option(extras, { freq: 4 }))
    .map(([known, extra]) => (extra ? { ...extra, ...known } : known));
}

/**
 * A query or form component, percent-encoded, or left raw so the encoding itself is hostile (NUL,
 * an encoded surrogate, a byte that is no UTF-8, stray `%`).
 */
export const encodedText = (value: fc.Arbitrary<unknown>) =>
  fc.oneof(
    {
      arbitrary: value.map((v) => safeEncode(typeof v === 'string' ? v : (JSON.stringify(v) ?? ''))),
      weight: 8,
    },
    { arbitrary: hostileText.map(safeEncode), weight: 2 },
    {
      arbitrary: fc.constantFrom('%00', '%ED%A0%80', '%FF', '%C3', '%', '%zz', '+', '%2B', '&&', '=='),
      weight: 1,
    },
  );

/** encodeURIComponent refuses lone surrogates; encode them as their (invalid) UTF-8-ish bytes. */
function safeEncode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return text.replace(/[\s\S]/g, (c) => {
      const code = c.charCodeAt(0);
      if (code >= 0xd800 && code <= 0xdfff)
        return `%${(0xe0 | (code >> 12)).toString(16)}%${(0x80 | ((code >> 6) & 0x3f)).toString(16)}%${(0x80 | (code & 0x3f)).toString(16)}`;
      return encodeURIComponent(c);
    });
  }
}

/** A query string: known parameters (near and far) and unknown ones, prototype names among them. */
export function queryFor(op: Operation): fc.Arbitrary<string> {
  const known = op.params
    .filter((p) => p.in === 'query')
    .map((p) => fc.tuple(fc.constant(p.name), encodedText(valueFor(p.schema))));
  const unknown = fc.tuple(
    fc.oneof(fc.constantFrom(...PROTOTYPE_NAMES), fc.string({ maxLength: 10 }).map(safeEncode)),
    encodedText(anyJson),
  );
  const pairs = known.length ? fc.oneof(...known, unknown) : unknown;
  return fc.array(pairs, { maxLength: 8 }).map((list) => list.map(([k, v]) => `${k}=${v}`).join('&'));
}

/** A path with its parameters filled: real ids most often, anything else sometimes. */
export function pathFor(op: Operation, ids: number[]): fc.Arbitrary<string> {
  const names = op.params.filter((p) => p.in === 'path').map((p) => p.name);
  const segment = fc.oneof(
    { arbitrary: fc.constantFrom(...ids).map(String), weight: 6 },
    { arbitrary: boundaryNumbers.map(String), weight: 2 },
    { arbitrary: hostileText.map((t) => safeEncode(t.slice(0, 300)) || 'x'), weight: 2 },
    { arbitrary: fc.constantFrom('%00', '%2F', '..', '%ED%A0%80', '1.0', '01', '+1', '1e3'), weight: 1 },
  );
  return fc
    .array(segment, { minLength: names.length, maxLength: names.length })
    .map((values) => names.reduce((p, name, i) => p.replace(`{${name}}`, values[i] ?? '1'), op.path));
}

/** A request body as bytes, and the media type it is sent with. */
export interface RawBody {
  type: string | undefined;
  bytes: Uint8Array;
}

const deepJson = fc
  .integer({ min: 33, max: 100_000 })
  .chain((n) =>
    fc.constantFrom(
      `${'['.repeat(n)}${']'.repeat(n)}`,
      `{"a":${'['.repeat(n)}1${']'.repeat(n)}}`,
      `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`,
    ),
  );

export function bodyFor(op: Operation): fc.Arbitrary<RawBody> {
  const declared = op.body?.type ?? 'application/json';
  const schema: Schema = op.body?.schema ?? { type: 'object', properties: {} };
  const object = fc.oneof(
    { arbitrary: objectFor(schema), weight: 6 },
    ...(op.body?.example
      ? [{ arbitrary: fc.constant(op.body.example as Record<string, unknown>), weight: 2 }]
      : []),
  );
  const text = (s: string) => new TextEncoder().encode(s);
  const asDeclared =
    declared === 'application/x-www-form-urlencoded'
      ? fc
          .array(
            fc.tuple(
              fc.oneof(
                fc.constantFrom(...Object.keys(schema.properties ?? {}), ...PROTOTYPE_NAMES),
                fc.string({ maxLength: 8 }),
              ),
              encodedText(valueFor({ type: 'string' })),
            ),
            { maxLength: 8 },
          )
          .map((pairs) => text(pairs.map(([k, v]) => `${safeEncode(k)}=${v}`).join('&')))
      : object.map((o) => text(JSON.stringify(o)));
  const hostileBytes = fc.oneof(
    deepJson.map(text),
    fc
      .constantFrom(
        '',
        '{',
        '{"a":',
        'null',
        '"x"',
        '[1]',
        '{"__proto__":{"x":1}}',
        '{"constructor":{"prototype":{"x":1}}}',
        '{"a":1,"a":2}',
        '\ufeff{}',
        '{"a":"\\ud800"}',
        '{"a":"\\u0000"}',
        '{"\\u0000":1}',
      )
      .map(text),
    fc.uint8Array({ maxLength: 64 }),
    fc.constantFrom(
      Uint8Array.from([0x7b, 0xff, 0xfe, 0x7d]),
      Uint8Array.from([0xc3, 0x28]),
      Uint8Array.from([0xed, 0xa0, 0x80]),
    ),
    fc.constant(new Uint8Array(1_100_000).fill(0x20)),
  );
  const mediaType = fc.oneof(
    { arbitrary: fc.constant(declared), weight: 10 },
    {
      arbitrary: fc.constantFrom(
        undefined,
        'application/json; charset=utf-8',
        'application/json; charset=latin1',
        'application/json-patch+json',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/json;;;',
        'APPLICATION/JSON',
      ),
      weight: 2,
    },
  );
  return fc.record({
    type: mediaType,
    bytes: fc.oneof({ arbitrary: asDeclared, weight: 5 }, { arbitrary: hostileBytes, weight: 2 }),
  });
}
