import type { createCaller } from '../../src/router.ts';
import type { Orm } from '../orm.ts';
import type { Flags, Parsed } from './args.ts';

/** The internal procedures, called as the operator. */
export type Operator = ReturnType<typeof createCaller>['internal'];

/** What a command may reach; the database is opened only when a command asks for it. */
export interface CommandEnv {
  json: boolean;
  /** The API's base URL (PUBLIC_URL, else http://localhost:PORT), for commands that call it. */
  publicUrl: string;
  orm(): Promise<Orm>;
  operator(): Promise<Operator>;
}

/**
 * One operator command. The help (`<command> --help`, `--help`), the unknown-flag check and the
 * README's CLI table are all derived from these fields, so they cannot drift apart.
 */
export interface CommandDef {
  name: string;
  /** The arguments after the name, as the usage line shows them (`--store ID [--test]`). */
  synopsis: string;
  /** One line: what it does. */
  description: string;
  /** Every flag it takes besides `--json` and `--help`; anything else is refused as unknown. */
  flags: Flags;
  run(args: Parsed, env: CommandEnv): Promise<unknown>;
  /** How the result reads without `--json`; indented JSON when absent. */
  format?(result: unknown): string;
}

/** Identity, for the type check and inference of a command literal. */
export const command = (def: CommandDef): CommandDef => def;
