import { didYouMean, parse, suggest, UnknownFlagError, UsageError, wantsHelp } from './args.ts';
import type { CommandDef } from './command.ts';
import { COMMANDS, findCommand } from './commands.ts';
import {
  commandHelp,
  commandHelpHint,
  commandHelpJson,
  HELP_HINT,
  overviewHelp,
  overviewHelpJson,
} from './help.ts';

/**
 * `npm run cli -- <command> [arguments] [--json]`. Exit codes: 0 done; 1 the command refused or
 * failed; 2 the command line itself is wrong (unknown command or flag, a bad argument).
 */

/** An unknown command, named, with the command most likely meant. */
function unknownCommand(name: string): UsageError {
  const meant = didYouMean(
    suggest(
      name,
      COMMANDS.map((c) => c.name),
    ),
  );
  return new UsageError(`Unknown command "${name}".${meant} ${HELP_HINT}`);
}

function unknownFlag(def: CommandDef, err: UnknownFlagError): UsageError {
  const meant = didYouMean(err.suggestions);
  return new UsageError(`Unknown flag "${err.flag}" for ${def.name}.${meant} ${commandHelpHint(def.name)}`);
}

/** Help never reads the configuration nor opens the database: it works on a machine with neither. */
function help(topic: string | undefined, json: boolean): void {
  if (topic === undefined) {
    console.log(json ? JSON.stringify(overviewHelpJson(COMMANDS)) : overviewHelp(COMMANDS));
    return;
  }
  const def = findCommand(topic);
  if (!def) throw unknownCommand(topic);
  console.log(json ? JSON.stringify(commandHelpJson(def)) : commandHelp(def));
}

async function execute(def: CommandDef, argv: string[], json: boolean): Promise<void> {
  let args: ReturnType<typeof parse>;
  try {
    args = parse(argv, def.flags);
  } catch (err) {
    throw err instanceof UnknownFlagError ? unknownFlag(def, err) : err;
  }
  const run = await import('./run.ts');
  try {
    await run.execute(def, args, json);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new CommandFailure(run.describeFailure(err));
  }
}

/** A command that ran and refused or failed, already described. */
class CommandFailure extends Error {
  readonly category: string;
  constructor(described: { category: string; message: string }) {
    super(described.message);
    this.category = described.category;
  }
}

async function main() {
  const given = process.argv.slice(2);
  const json = given.includes('--json');
  // `--json` may come first too (`--json stores:list`); it is every command's flag.
  const [name, ...argv] = given[0] === '--json' ? [...given.slice(1), '--json'] : given;
  try {
    if (name === undefined) {
      // No command is a mistake (an empty variable in a script): the list, but on stderr and exit 2.
      console.error(overviewHelp(COMMANDS));
      process.exitCode = 2;
    } else if (name === '--help' || name === '-h' || name === 'help') {
      help(
        argv.find((a) => !a.startsWith('-')),
        json,
      );
    } else {
      const def = findCommand(name);
      if (!def) throw unknownCommand(name);
      if (wantsHelp(argv)) help(def.name, json);
      else await execute(def, argv, json);
    }
  } catch (err) {
    const usage = err instanceof UsageError;
    const category = usage ? 'bad_request' : err instanceof CommandFailure ? err.category : 'server_error';
    const message = err instanceof Error ? (err.message.split('\n')[0] ?? '') : String(err);
    if (json) console.log(JSON.stringify({ error: category, message }));
    else console.error(`error: ${message}`);
    process.exitCode = usage ? 2 : 1;
  }
  process.exit(process.exitCode ?? 0);
}

await main();
