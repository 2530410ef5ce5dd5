import type { AnyTRPCProcedure, TRPCRouterRecord } from '@trpc/server';
import type { z } from 'zod';
import { appRouter, createCaller } from '../router.ts';
import type { Context } from '../trpc/context.ts';
import type { Meta } from '../trpc/init.ts';

/** Every procedure of the app router by its dotted path (`listings.add`), checked by the compiler. */
type PathsOf<R, Prefix extends string = ''> = {
  [K in keyof R & string]: R[K] extends AnyTRPCProcedure
    ? `${Prefix}${K}`
    : R[K] extends TRPCRouterRecord
      ? PathsOf<R[K], `${Prefix}${K}.`>
      : never;
}[keyof R & string];
export type ProcedurePath = PathsOf<(typeof appRouter)['_def']['record']>;

export interface ProcedureInfo {
  type: 'query' | 'mutation';
  meta: Meta;
  input: z.ZodType;
  output: z.ZodType;
}

interface ProcedureDef {
  type: 'query' | 'mutation' | 'subscription';
  meta?: Meta;
  inputs: unknown[];
  output?: unknown;
}

/** What a tool reuses of its procedure: its kind, its meta (scopes, limits), its zod input and output. */
export function procedureInfo(path: ProcedurePath): ProcedureInfo {
  const procedures = appRouter._def.procedures as unknown as Record<
    string,
    { _def: ProcedureDef } | undefined
  >;
  const def = procedures[path]?._def;
  const [input] = def?.inputs ?? [];
  if (!def || def.type === 'subscription' || def.inputs.length !== 1 || !def.output) {
    throw new Error(`${path} is not a query or mutation with one input and an output schema`);
  }
  return {
    type: def.type,
    meta: def.meta ?? {},
    input: input as z.ZodType,
    output: def.output as z.ZodType,
  };
}

type Callable = (input: unknown) => Promise<unknown>;

/**
 * Calls a procedure as the REST adapter would, with the context's preset actor: the procedure parses
 * the input, applies the scope rule and the rate limits, and parses its output.
 */
export function callProcedure(ctx: Context, path: ProcedurePath, input: unknown): Promise<unknown> {
  let target: unknown = createCaller(ctx);
  for (const key of path.split('.')) target = (target as Record<string, unknown>)[key];
  return (target as Callable)(input);
}
