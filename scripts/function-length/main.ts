/**
 * `npm run lint:length`: fails when a function is over the limit once its template literals' text is
 * counted, unless scripts/length-pending.json lists it, and when that list names one that is not.
 */
import { findOffenders, judge, LENGTH_LIMIT, PENDING_FILE, readPending } from './check.ts';

const root = process.cwd();
const { unlisted, stale, waiting } = judge(findOffenders(root), readPending(root));
const where = (o: { file: string; line: number; name: string; lines: number; biomeLines: number }) =>
  `${o.file}:${o.line} ${o.name}: ${o.lines} lines (Biome counts ${o.biomeLines})`;

for (const o of waiting) console.log(`pending  ${where(o)}`);
for (const o of unlisted) console.error(`over ${LENGTH_LIMIT}  ${where(o)}`);
for (const p of stale)
  console.error(
    `stale    ${p.file} ${p.function}: no longer over ${LENGTH_LIMIT}, remove it from ${PENDING_FILE}`,
  );
if (unlisted.length || stale.length) {
  console.error(
    `\n${unlisted.length} function(s) over ${LENGTH_LIMIT} lines counting template text: split them into named steps or move their SQL into named query functions.`,
  );
  process.exit(1);
}
console.log(
  `function length: every function at most ${LENGTH_LIMIT} lines, template text counted (${waiting.length} pending).`,
);
