import { z } from 'zod';

/** PostgreSQL `integer` range: larger ids can never exist and must be a 400, not a 500. */
export const PG_INT_MAX = 2_147_483_647;

/**
 * An integer parameter that accepts a number (tRPC callers) or a plain decimal string (REST query
 * and path). trpc-to-openapi would otherwise coerce with `Number()`, which reads `0x1`, `1e0`, `+1`
 * and an empty string as numbers; a pipe is never coerced, so this stays strict.
 */
export function intParam(min: number, max = PG_INT_MAX, docs: Record<string, unknown> = {}) {
  return z
    .union([
      z.int(),
      z
        .string()
        .regex(/^-?(0|[1-9]\d*)$/, 'must be a whole number in decimal digits')
        .transform(Number),
    ])
    .pipe(z.int().min(min).max(max))
    .meta({ override: documentAs({ type: 'integer', minimum: min, maximum: max, ...docs }) });
}

/** Documents a parameter by what REST clients send, not by the union that also serves tRPC. */
function documentAs(schema: Record<string, unknown>) {
  return ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
    for (const key of Object.keys(jsonSchema)) delete jsonSchema[key];
    Object.assign(jsonSchema, schema);
  };
}

/** A database id (path or query). */
export const idParam = intParam(1);

/** Free text where an empty value means "not given" (as an HTML form would send it). */
export function textParam(max: number, docs: Record<string, unknown> = {}) {
  return (
    z
      .string()
      .max(max)
      // PostgreSQL text cannot hold U+0000; refuse it here rather than fail in the database.
      .refine(noNul, NUL_MESSAGE)
      .transform((v) => (v.trim() === '' ? undefined : v))
      .meta({ override: documentAs({ type: 'string', maxLength: max, ...docs }) })
  );
}

/**
 * A boolean: JSON `true`/`false` in bodies, exactly `true`/`false` in query strings. trpc-to-openapi
 * would coerce a plain `z.boolean()` with `Boolean()`, reading the string `false` as true; a union
 * is never coerced.
 */
export const boolParam = z
  .union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')])
  // The pipe is what lets trpc-to-openapi accept it as a query parameter.
  .pipe(z.boolean())
  .meta({ override: documentAs({ type: 'boolean' }) });

/** Parameter documentation for the contract. */
export const described = (description: string) => ({ description });

/** PostgreSQL text cannot hold U+0000: refuse it in any free text, never a 500 from the database. */
export const noNul = (v: string) => !v.includes('\0');
export const NUL_MESSAGE = 'must not contain NUL characters';
