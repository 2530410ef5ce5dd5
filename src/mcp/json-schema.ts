import { z } from 'zod';

type Io = 'input' | 'output';
type Json = Record<string, unknown>;

/**
 * The contract's parameter docs say `{ override }` in zod-openapi's sense (an integer parameter that
 * also takes decimal strings is documented as an integer): applied here as the OpenAPI document does.
 */
function contractOverrides(io: Io) {
  return (ctx: { zodSchema: unknown; jsonSchema: Json }) => {
    const override = ctx.jsonSchema.override;
    if (override === undefined) return;
    delete ctx.jsonSchema.override;
    if (typeof override === 'function')
      override({ jsonSchema: ctx.jsonSchema, zodSchema: ctx.zodSchema, io });
    else Object.assign(ctx.jsonSchema, override);
  };
}

/** A procedure's zod schema as JSON Schema (draft-07, the dialect the SDK declares for every tool). */
export function jsonSchemaOf(schema: z.ZodType, io: Io): Json {
  const { $schema: _, ...json } = z.toJSONSchema(schema, {
    target: 'draft-07',
    io,
    override: contractOverrides(io),
    unrepresentable: 'any',
  }) as Json;
  return json;
}

/**
 * What a tool hands the MCP SDK: an object schema that lets every argument through, described as the
 * procedure's own schema. The SDK parses arguments with the schema it advertises, and answers a
 * failure in its own words; the procedure parses them again and answers in the contract's, which is
 * what the caller must see. So the SDK only advertises the schema (its JSON Schema is the procedure's,
 * carried as metadata that zod merges into the generated document) and the procedure does the parsing.
 * The same holds for output: the procedure has parsed its answer already.
 */
export function advertised(schema: z.ZodType, io: Io): z.ZodType<Json> {
  return z.looseObject({}).meta(jsonSchemaOf(schema, io));
}
