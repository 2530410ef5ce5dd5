import { isObject, type oas31, pointer, type Schema } from './shared.ts';

/** A schema with its `$ref`s followed (at most ten deep, as cycles are possible). */
function resolve(doc: oas31.OpenAPIObject, schema: Schema | undefined): oas31.SchemaObject | undefined {
  let s: unknown = schema;
  for (let i = 0; isObject(s) && typeof s.$ref === 'string' && i < 10; i++) s = pointer(doc, s.$ref);
  // Whatever a reference points at in this document is a schema: the generator wrote both.
  return isObject(s) ? (s as oas31.SchemaObject) : undefined;
}

/**
 * An example built from the schema: each field's own `example` (set with `.meta({ example })` on
 * the routers' zod schemas), else its default, first enum value or a placeholder of its type. The
 * contract's examples thus come from the same schemas as the contract.
 */
export function sampleOf(doc: oas31.OpenAPIObject, schema: Schema | undefined, depth = 0): unknown {
  const s = resolve(doc, schema);
  if (!s || depth > 20) return null;
  if ('example' in s) return structuredClone(s.example);
  if (Array.isArray(s.examples) && s.examples.length > 0) return structuredClone(s.examples[0]);
  if ('const' in s) return s.const;
  if ('default' in s) return structuredClone(s.default);
  if (Array.isArray(s.enum)) return s.enum[0];
  const union = s.anyOf ?? s.oneOf;
  if (Array.isArray(union)) {
    const branch = union.find((b) => resolve(doc, b)?.type !== 'null') ?? union[0];
    return sampleOf(doc, branch, depth + 1);
  }
  if (Array.isArray(s.allOf)) {
    return Object.assign({}, ...s.allOf.map((part) => sampleOf(doc, part, depth + 1)));
  }
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  if (type === 'object' || s.properties) return objectSample(doc, s, depth);
  if (type === 'array') return [sampleOf(doc, s.items ?? {}, depth + 1)];
  if (type === 'integer' || type === 'number') return numberSample(s);
  if (type === 'boolean') return true;
  if (type === 'null') return null;
  if (type === 'string') return stringSample(s);
  return null;
}

function objectSample(
  doc: oas31.OpenAPIObject,
  s: oas31.SchemaObject,
  depth: number,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(s.properties ?? {})) out[name] = sampleOf(doc, prop, depth + 1);
  if (!s.properties && s.additionalProperties && typeof s.additionalProperties === 'object') {
    out.key = sampleOf(doc, s.additionalProperties, depth + 1);
  }
  return out;
}

function numberSample(s: oas31.SchemaObject): number {
  let v = 1;
  if (typeof s.minimum === 'number' && v < s.minimum) v = s.minimum;
  if (typeof s.maximum === 'number' && v > s.maximum) v = s.maximum;
  return v;
}

function stringSample(s: oas31.SchemaObject): string {
  if (s.format === 'date-time') return '2026-11-02T09:30:00.000Z';
  if (s.format === 'date') return '2026-11-02';
  if (s.format === 'email') return 'sam.lee@example.com';
  if (s.format === 'uri') return 'https://example.com/';
  return 'string';
}
