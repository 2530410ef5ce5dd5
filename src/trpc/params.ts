import { z } from 'zod';
import { wrongType } from '../errors.ts';

/** PostgreSQL `integer` range: larger ids can never exist and must be a 400, not a 500. */
export const PG_INT_MAX = 2_147_483_647;

/**
 * An integer parameter that accepts a number (tRPC callers) or a plain decimal string (REST query
 * and path). trpc-to-openapi would otherwise coerce with `Number()`, which reads `0x1`, `1e0`, `+1`
 * and an empty string as numbers; a pipe is never coerced, so this stays strict.
 */
export function intParam(min: number, max = PG_INT_MAX, docs: Record<string, unknown> = {}) {
  return z
    .union(
      [
        z.int(),
        z
          .string()
          .regex(/^-?(0|[1-9]\d*)$/)
          .transform(Number),
      ],
      {
        error: asOneType('integer'),
      },
    )
    .pipe(z.int().min(min).max(max))
    .meta({ override: documentAs({ type: 'integer', minimum: min, maximum: max, ...docs }) });
}

/**
 * A union of a type and its string form is one type to the client: a refusal says what that type is
 * (`expected integer, got boolean`, `expected integer, got string "1e3"`), not zod's "Invalid input".
 */
function asOneType(expected: string) {
  return (issue: z.core.$ZodRawIssue) =>
    issue.code === 'invalid_union' ? wrongType(expected, issue.input, true) : undefined;
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
  .union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')], {
    error: asOneType('boolean'),
  })
  // The pipe is what lets trpc-to-openapi accept it as a query parameter.
  .pipe(z.boolean())
  .meta({ override: documentAs({ type: 'boolean' }) });

/** Parameter documentation for the contract. */
export const described = (description: string) => ({ description });

/** PostgreSQL text cannot hold U+0000: refuse it in any free text, never a 500 from the database. */
export const noNul = (v: string) => !v.includes('\0');
export const NUL_MESSAGE = 'must not contain NUL characters';

/** Offsets PostgreSQL refuses (it takes up to ±15:59), and its missing year 0. */
const UNSTORABLE_TIME = /^0000|[+-](1[6-9]|2\d):?\d\d$/;

/** Whether PostgreSQL can take this ISO 8601 date or date-time: years 0001 to 9999, offsets within ±15:59. */
export const storableTime = (v: string) => !UNSTORABLE_TIME.test(v);

/**
 * An ISO 8601 date-time with a time zone (`Z` or an offset) that PostgreSQL can compare with. Anything
 * else is a 400 here, never a database error.
 */
export const isoDateTimeParam = () =>
  z.iso
    .datetime({ offset: true })
    .refine(storableTime, 'must be a date-time between years 0001 and 9999, offset within ±15:59');
