/**
 * `npm run lint:length`: fails when a function is over the limit once its template literals' text is
 * counted.
 */
import { findOffenders, LENGTH_LIMIT } from './check.ts';

const offenders = findOffenders(process.cwd());
for (const o of offenders)
  console.error(
    `over ${LENGTH_LIMIT}  ${o.file}:${o.line} ${o.name}: ${o.lines} lines (Biome counts ${o.biomeLines})`,
  );
if (offenders.length) {
  console.error(
    `\n${offenders.length} function(s) over ${LENGTH_LIMIT} lines counting template text: split them into named steps or move their SQL into named query functions.`,
  );
  process.exit(1);
}
console.log(`function length: every function at most ${LENGTH_LIMIT} lines, template text counted.`);
