import { isObject, type oas31, type Schema } from './shared.ts';

// What a contract documents, thing by thing, so two versions can be compared (diff.ts).

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

/** One documented thing of a document, by a stable location key. */
export interface Node {
  kind: 'operation' | 'webhook' | 'parameter' | 'field' | 'response';
  types?: string;
  enum?: unknown[];
  required?: boolean;
  deprecated?: boolean;
  sunset?: unknown;
  /** Keys of the containing operation and fields, outermost first. */
  parents: string[];
  tokens: string[];
}

/**
 * `node` with its local `$ref`s followed. What a reference points at is taken to be what the
 * reference stands for: the check reads released documents as they are, and a wrong target reads as
 * an absent thing, never as a crash.
 */
function resolveRef<T extends object>(doc: oas31.OpenAPIObject, node: T | oas31.ReferenceObject | undefined) {
  let n: unknown = node;
  for (let i = 0; isObject(n) && typeof n.$ref === 'string' && i < 20; i++) {
    if (!n.$ref.startsWith('#/')) return n as T;
    n = n.$ref
      .slice(2)
      .split('/')
      .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>((o, key) => (isObject(o) ? o[key] : undefined), doc);
  }
  return isObject(n) ? (n as T) : undefined;
}

const resolveSchema = (doc: oas31.OpenAPIObject, schema: Schema | undefined) =>
  resolveRef<oas31.SchemaObject>(doc, schema);

/** The branches a schema is made of. */
const partsOf = (s: oas31.SchemaObject): Schema[] => [
  ...(s.anyOf ?? []),
  ...(s.oneOf ?? []),
  ...(s.allOf ?? []),
];

/** The JSON types a schema allows, `null` aside (nullability is not compared). */
function typesOf(doc: oas31.OpenAPIObject, schema: Schema | undefined, depth = 0): string[] {
  const s = resolveSchema(doc, schema);
  if (!s || depth > 10) return [];
  const own: string[] = Array.isArray(s.type) ? [...s.type] : s.type ? [s.type] : [];
  const union = partsOf(s).flatMap((b) => typesOf(doc, b, depth + 1));
  if (own.length === 0 && union.length === 0) {
    if (s.properties) own.push('object');
    else if (s.items) own.push('array');
    else if ('const' in s) own.push(typeof s.const);
  }
  return [...new Set([...own, ...union])].filter((t) => t !== 'null').sort();
}

type Visit = (path: string, s: Schema, required: boolean) => void;

/** Every field under a schema: `a.b`, `a[].c`, `a.*` (map values), each with its own schema. */
function walkSchema(
  doc: oas31.OpenAPIObject,
  schema: Schema | undefined,
  prefix: string,
  visit: Visit,
  seen: Set<unknown> = new Set(),
  depth = 0,
) {
  const s = resolveSchema(doc, schema);
  if (!s || depth > 25 || seen.has(s)) return;
  const inner = new Set(seen).add(s);
  for (const part of partsOf(s)) walkSchema(doc, part, prefix, visit, inner, depth + 1);
  const required: string[] = Array.isArray(s.required) ? s.required : [];
  for (const [name, prop] of Object.entries(s.properties ?? {})) {
    const path = prefix ? `${prefix}.${name}` : name;
    visit(path, prop, required.includes(name));
    walkSchema(doc, prop, path, visit, inner, depth + 1);
  }
  if (s.items) walkSchema(doc, s.items, `${prefix}[]`, visit, inner, depth + 1);
  if (s.additionalProperties && typeof s.additionalProperties === 'object') {
    const path = `${prefix}.*`;
    visit(path, s.additionalProperties, false);
    walkSchema(doc, s.additionalProperties, path, visit, inner, depth + 1);
  }
}

/** Enum values a schema allows, through `anyOf`/`oneOf` (a nullable enum). */
function enumOf(doc: oas31.OpenAPIObject, schema: Schema | undefined): unknown[] | undefined {
  const s = resolveSchema(doc, schema);
  if (!s) return undefined;
  if (Array.isArray(s.enum)) return s.enum;
  const branches = [...(s.anyOf ?? []), ...(s.oneOf ?? [])].map((b) => enumOf(doc, b));
  const found = branches.filter((b): b is unknown[] => Array.isArray(b));
  return found.length ? found.flat() : undefined;
}

/** Whether a schema, or any schema it is made of, says so (a property `$ref` with siblings included). */
function flag(doc: oas31.OpenAPIObject, schema: Schema, key: 'deprecated' | 'x-sunset'): unknown {
  if (isObject(schema) && key in schema) return schema[key];
  const s = resolveSchema(doc, schema);
  return s ? (s as Record<string, unknown>)[key] : undefined;
}

/** The keys of the fields containing a field (`a`, `a.b` for `a.b.c`). */
function ancestors(owner: string, where: string, path: string): string[] {
  const out: string[] = [];
  const parts = path.split('.');
  for (let i = 1; i < parts.length; i++) {
    // `items[].sku` is under the field `items` (its array items have no key of their own).
    out.push(
      `${owner} ${where} ${parts
        .slice(0, i)
        .join('.')
        .replace(/(\[\])+$/, '')}`,
    );
  }
  return out;
}

/** A document and the surface found in it so far. */
interface Survey {
  doc: oas31.OpenAPIObject;
  out: Map<string, Node>;
}

/** The fields under one schema of an operation (`where`: `request <type>` or `response <status> <type>`). */
function addFields(
  survey: Survey,
  owner: string,
  parents: string[],
  where: string,
  schema: Schema | undefined,
) {
  const { doc, out } = survey;
  walkSchema(doc, schema, '', (path, s, required) => {
    const leaf = path.split('.').pop()?.replace('[]', '') ?? path;
    out.set(`${owner} ${where} ${path}`, {
      kind: 'field',
      types: typesOf(doc, s).join('|'),
      enum: enumOf(doc, s),
      required,
      deprecated: flag(doc, s, 'deprecated') === true,
      sunset: flag(doc, s, 'x-sunset'),
      parents: [...parents, ...ancestors(owner, where, path)],
      tokens: [path, leaf],
    });
  });
}

function addParameters(survey: Survey, owner: string, op: oas31.OperationObject) {
  const { doc, out } = survey;
  for (const raw of op.parameters ?? []) {
    const p = resolveRef<oas31.ParameterObject>(doc, raw);
    if (!p?.name) continue;
    out.set(`${owner} param ${p.in}:${p.name}`, {
      kind: 'parameter',
      types: typesOf(doc, p.schema).join('|'),
      enum: enumOf(doc, p.schema),
      required: p.required === true,
      deprecated: p.deprecated === true,
      sunset: p['x-sunset'],
      parents: [owner],
      tokens: [p.name],
    });
  }
}

function addOperation(
  survey: Survey,
  owner: string,
  op: oas31.OperationObject,
  kind: 'operation' | 'webhook',
  tokens: string[],
) {
  const { doc, out } = survey;
  out.set(owner, {
    kind,
    deprecated: op.deprecated === true,
    sunset: op['x-sunset'],
    parents: [],
    tokens: [...tokens, ...(op.operationId ? [op.operationId] : [])],
  });
  addParameters(survey, owner, op);
  const body = resolveRef<oas31.RequestBodyObject>(doc, op.requestBody);
  for (const [type, media] of Object.entries(body?.content ?? {})) {
    addFields(survey, owner, [owner], `request ${type}`, media?.schema);
  }
  for (const [status, raw] of Object.entries(op.responses ?? {})) {
    if (!/^2/.test(status)) continue;
    const answer = `${owner} response ${status}`;
    out.set(answer, { kind: 'response', parents: [owner], tokens: [status] });
    const response = resolveRef<oas31.ResponseObject>(doc, raw);
    for (const [type, media] of Object.entries(response?.content ?? {})) {
      addFields(survey, owner, [owner, answer], `response ${status} ${type}`, media?.schema);
    }
  }
}

/** The operations of a path item (or webhook), in the document's order. */
function operationsOf(
  doc: oas31.OpenAPIObject,
  item: oas31.PathItemObject,
): [string, oas31.OperationObject][] {
  const resolved = resolveRef<oas31.PathItemObject>(doc, item) ?? {};
  const out: [string, oas31.OperationObject][] = [];
  for (const key of Object.keys(resolved)) {
    const op = isMethod(key) ? resolved[key] : undefined;
    if (op) out.push([key, op]);
  }
  return out;
}

const isMethod = (key: string): key is (typeof METHODS)[number] =>
  (METHODS as readonly string[]).includes(key);

/** Every documented thing of a document by location key. */
export function surface(doc: oas31.OpenAPIObject): Map<string, Node> {
  const survey: Survey = { doc, out: new Map() };
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of operationsOf(doc, item)) {
      const owner = `${method.toUpperCase()} ${path}`;
      addOperation(survey, owner, op, 'operation', [path, owner]);
    }
  }
  for (const [event, item] of Object.entries(doc.webhooks ?? {})) {
    for (const [, op] of operationsOf(doc, item))
      addOperation(survey, `webhook ${event}`, op, 'webhook', [event]);
  }
  return survey.out;
}
