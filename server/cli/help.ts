import { COMMON_FLAGS, type FlagSpec } from './args.ts';
import type { CommandDef } from './command.ts';

export const INVOCATION = 'npm run cli --';
export const HELP_HINT = `Run "${INVOCATION} --help" for the list.`;
export const commandHelpHint = (name: string) => `Run "${INVOCATION} ${name} --help" for its usage.`;

/** `keys:create --store ID --scope read|read_write [--test] [--name N]`. */
export const usageLine = (def: CommandDef) => [def.name, def.synopsis].filter(Boolean).join(' ');

function flagRows(def: CommandDef): { flag: string; help: string }[] {
  const row = (name: string, f: FlagSpec) => ({
    flag: `--${name}${f.type === 'string' ? ` ${f.value ?? 'VALUE'}` : ''}${f.multiple ? '…' : ''}`,
    help: f.help,
  });
  return [
    ...Object.entries(def.flags).map(([name, f]) => row(name, f)),
    row('json', COMMON_FLAGS.json as FlagSpec),
    { flag: '-h, --help', help: (COMMON_FLAGS.help as FlagSpec).help },
  ];
}

const columns = (rows: { left: string; right: string }[]) => {
  const width = Math.max(...rows.map((r) => r.left.length));
  return rows.map((r) => `  ${r.left.padEnd(width)}  ${r.right}`).join('\n');
};

/** `<command> --help`: the usage line, the one-line description and every flag. */
export function commandHelp(def: CommandDef): string {
  return [
    `Usage: ${INVOCATION} ${usageLine(def)} [--json]`,
    '',
    `${def.description.charAt(0).toUpperCase()}${def.description.slice(1)}.`,
    '',
    'Flags:',
    columns(flagRows(def).map((r) => ({ left: r.flag, right: r.help }))),
  ].join('\n');
}

/** `--help`, `help`, or no command: every command with its one-line description. */
export function overviewHelp(commands: readonly CommandDef[]): string {
  return [
    'Stockless operator CLI',
    '',
    `Usage: ${INVOCATION} <command> [arguments] [--json]`,
    `       ${INVOCATION} <command> --help`,
    '',
    'Commands:',
    columns(commands.map((c) => ({ left: c.name, right: c.description }))),
    '',
    'Every command prints JSON with --json; a failure exits non-zero with a one-line reason',
    '(2: the command line itself is wrong; 1: the command refused or failed).',
  ].join('\n');
}

/** The same help as data, for `--help --json`. */
export function commandHelpJson(def: CommandDef) {
  return {
    command: def.name,
    usage: `${INVOCATION} ${usageLine(def)} [--json]`,
    description: def.description,
    flags: flagRows(def),
  };
}

export function overviewHelpJson(commands: readonly CommandDef[]) {
  return {
    commands: commands.map((c) => ({ command: c.name, usage: usageLine(c), description: c.description })),
  };
}

/** The README's "Operator CLI" table, generated from the same definitions (a test keeps them equal). */
export function readmeTable(commands: readonly CommandDef[]): string {
  const cell = (text: string) => text.replaceAll('|', '\\|');
  return [
    '| Command | Does |',
    '| ------- | ---- |',
    ...commands.map((c) => `| \`${cell(usageLine(c))}\` | ${cell(c.description)} |`),
  ].join('\n');
}
