/**
 * Runs one of the examples with the project's own Node (24, installed by `npm ci`), so the Node on
 * your PATH may be older, and against the SDK's sources, so no `npm run build:sdk` is needed:
 *
 *   npm run example -- <name> [arguments…]     e.g.  npm run example -- inventory-sync --follow
 *
 * `npm run example` starts this file with `--conditions=stockless-source`, under which
 * `@stockless/sdk` resolves to client/src (as for `npm run check:examples`) instead of client/dist.
 * The example then runs in this process, with the arguments after its name as its own.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const HERE = import.meta.dirname;
/** Files here that are not examples. */
const NOT_EXAMPLES = new Set(['run.ts', 'shared.ts']);

interface Example {
  name: string;
  summary: string;
}

function examples(): Example[] {
  return readdirSync(HERE)
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts') && !NOT_EXAMPLES.has(file))
    .sort()
    .map((file) => ({ name: file.slice(0, -'.ts'.length), summary: summaryOf(join(HERE, file)) }));
}

/** The file's leading doc comment, up to the end of its first sentence or a colon. */
function summaryOf(file: string): string {
  const doc = /^\/\*\*([\s\S]*?)\*\//.exec(readFileSync(file, 'utf8'))?.[1] ?? '';
  const lines = doc.split('\n').map((line) => line.replace(/^\s*\* ?/, ''));
  const paragraph = lines
    .slice(lines.findIndex((line) => line.trim() !== ''))
    .join('\n')
    .split(/\n\s*\n/)[0];
  const text = (paragraph ?? '').replace(/\s+/g, ' ').trim();
  // A full stop before a capital (or the end) ends the sentence; "e.g. an" does not.
  return (/^.*?(?=[.:](\s+[A-Z`]|\s*$)|:\s)/.exec(text)?.[0] ?? text).trim();
}

function usage(problem: string | undefined, list: Example[]): string {
  const width = Math.max(...list.map((e) => e.name.length));
  return [
    ...(problem ? [problem] : []),
    'Usage: npm run example -- <name> [arguments]   (e.g. npm run example -- inventory-sync)',
    '',
    'Examples (see examples/README.md):',
    ...list.map((e) => `  ${e.name.padEnd(width)}  ${e.summary}`),
  ].join('\n');
}

const [requested, ...args] = process.argv.slice(2);
const list = examples();
if (requested === '--help' || requested === '-h') {
  console.log(usage(undefined, list));
  process.exit(0);
}
// `inventory-sync`, `inventory-sync.ts` and `examples/inventory-sync.ts` all name the same example.
const name = requested?.replace(/^(\.\/)?examples\//, '').replace(/\.ts$/, '');
const example = list.find((e) => e.name === name);
if (!example) {
  console.error(usage(requested ? `No example named "${requested}".` : 'Name an example to run.', list));
  process.exit(2);
}
const file = join(HERE, `${example.name}.ts`);
process.argv = [process.argv[0] ?? process.execPath, file, ...args];
await import(pathToFileURL(file).href);
