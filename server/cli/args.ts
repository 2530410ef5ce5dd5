import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import { didYouMean, suggest } from '../suggest.ts';

export { didYouMean, suggest };

/** The invocation itself is wrong (unknown command or flag, a missing or malformed argument): exit 2. */
export class UsageError extends Error {}

/** One flag of a command: how it parses, and how its help reads. */
export interface FlagSpec {
  type: 'string' | 'boolean';
  multiple?: boolean;
  /** The value's placeholder in help (`ID`, `CENTS`); string flags only. */
  value?: string;
  help: string;
}

export type Flags = Record<string, FlagSpec>;

export interface Parsed {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/** Every command takes these besides its own. */
export const COMMON_FLAGS: Flags = {
  json: { type: 'boolean', help: 'print the result as one line of JSON' },
  help: { type: 'boolean', help: "print this command's usage and exit" },
};

/** A flag that the command does not declare, with the closest one it does when there is one. */
export class UnknownFlagError extends UsageError {
  readonly flag: string;
  readonly suggestions: string[];
  constructor(flag: string, suggestions: string[]) {
    super(`Unknown flag "${flag}"`);
    this.flag = flag;
    this.suggestions = suggestions;
  }
}

function parseOptions(flags: Flags): ParseArgsOptionsConfig {
  const options: ParseArgsOptionsConfig = { help: { type: 'boolean', short: 'h' } };
  for (const [name, f] of Object.entries({ ...flags, json: COMMON_FLAGS.json as FlagSpec })) {
    options[name] = f.multiple ? { type: f.type, multiple: true } : { type: f.type };
  }
  return options;
}

/** True when `--help` or `-h` comes before any `--` terminator. */
export function wantsHelp(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

/** Parses a command's arguments against its declared flags; an undeclared flag is named as unknown. */
export function parse(argv: string[], flags: Flags): Parsed {
  const options = parseOptions(flags);
  // A lenient pass first, to name an unknown flag (and suggest the flag meant) before anything else.
  const { tokens } = parseArgs({ args: argv, options, allowPositionals: true, strict: false, tokens: true });
  for (const t of tokens) {
    if (t.kind === 'option' && !Object.hasOwn(options, t.name)) {
      const known = Object.keys(options).map((n) => `--${n}`);
      throw new UnknownFlagError(t.rawName, t.rawName.startsWith('--') ? suggest(t.rawName, known) : []);
    }
  }
  try {
    const out = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    return { values: out.values as Parsed['values'], positionals: out.positionals };
  } catch (err) {
    throw new UsageError(err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err));
  }
}

export function requireString(values: Parsed['values'], name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}

export function integer(value: unknown, name: string): number {
  if (typeof value !== 'string' || !/^\d+$/.test(value))
    throw new UsageError(`${name} must be a whole number`);
  return Number(value);
}

/** An optional string flag's value. */
export const optionalString = (value: unknown) => (typeof value === 'string' ? value : undefined);
