import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';

export class UsageError extends Error {}

export interface Parsed {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

export function parse(argv: string[], options: ParseArgsOptionsConfig): Parsed {
  try {
    const out = parseArgs({
      args: argv,
      options: { ...options, json: { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    });
    return { values: out.values as Parsed['values'], positionals: out.positionals };
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}

export function requireString(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

export function integer(value: string | undefined, name: string): number {
  if (value === undefined || !/^\d+$/.test(value)) throw new UsageError(`${name} must be a whole number`);
  return Number(value);
}
