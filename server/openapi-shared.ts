/** What the hand-written parts of the contract share: a loose JSON type, refs, headers, samples. */

// biome-ignore lint/suspicious/noExplicitAny: the document is plain JSON assembled by hand around the generated part.
export type Json = any;

export const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

export const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': ref('headers', 'RateLimitLimit'),
  'X-RateLimit-Remaining': ref('headers', 'RateLimitRemaining'),
  'X-RateLimit-Reset': ref('headers', 'RateLimitReset'),
};

function resolve(doc: Json, schema: Json): Json {
  let s = schema;
  for (let i = 0; s?.$ref && i < 10; i++) {
    const path = (s.$ref as string).replace(/^#\//, '').split('/');
    s = path.reduce((node: Json, key) => node?.[key], doc);
  }
  return s;
}

/**
 * An example built from the schema: each field's own `example` (set with `.meta({ example })` on
 * the routers' zod schemas), else its default, first enum value or a placeholder of its type. The
 * contract's examples thus come from the same schemas as the contract.
 */
export function sampleOf(doc: Json, schema: Json, depth = 0): unknown {
  const s = resolve(doc, schema);
  if (!s || typeof s !== 'object' || depth > 20) return null;
  if ('example' in s) return structuredClone(s.example);
  if (Array.isArray(s.examples) && s.examples.length > 0) return structuredClone(s.examples[0]);
  if ('const' in s) return s.const;
  if ('default' in s) return structuredClone(s.default);
  if (Array.isArray(s.enum)) return s.enum[0];
  const union = s.anyOf ?? s.oneOf;
  if (Array.isArray(union)) {
    const branch = union.find((b: Json) => resolve(doc, b)?.type !== 'null') ?? union[0];
    return sampleOf(doc, branch, depth + 1);
  }
  if (Array.isArray(s.allOf)) {
    return Object.assign({}, ...s.allOf.map((part: Json) => sampleOf(doc, part, depth + 1)));
  }
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
  if (type === 'object' || s.properties) {
    const out: Record<string, unknown> = {};
    for (const [name, prop] of Object.entries(s.properties ?? {})) out[name] = sampleOf(doc, prop, depth + 1);
    if (!s.properties && s.additionalProperties && typeof s.additionalProperties === 'object') {
      out.key = sampleOf(doc, s.additionalProperties, depth + 1);
    }
    return out;
  }
  if (type === 'array') return [sampleOf(doc, s.items ?? {}, depth + 1)];
  if (type === 'integer' || type === 'number') {
    let v = 1;
    if (typeof s.minimum === 'number' && v < s.minimum) v = s.minimum;
    if (typeof s.maximum === 'number' && v > s.maximum) v = s.maximum;
    return v;
  }
  if (type === 'boolean') return true;
  if (type === 'null') return null;
  if (type === 'string') {
    if (s.format === 'date-time') return '2026-11-02T09:30:00.000Z';
    if (s.format === 'date') return '2026-11-02';
    if (s.format === 'email') return 'sam.lee@example.com';
    if (s.format === 'uri') return 'https://example.com/';
    return 'string';
  }
  return null;
}
