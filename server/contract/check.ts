/**
 * Contract discipline (the spec's Versioning): `openapi.json` against the released copies kept in
 * `docs/contract/openapi-<version>.json`, and `CHANGELOG.md`.
 *
 * - Any change bumps `info.version` by one step of the spec's rule: patch for an addition, minor for
 *   a deprecation (`deprecated: true` newly set), major for a removal (a path, operation, webhook
 *   event, parameter, request or response field, success answer or enum value that is gone) or a
 *   changed meaning (a field or parameter whose type changed, or a parameter or request field that
 *   became required). A larger step than the changes need is allowed (a changed meaning the check
 *   cannot see); a smaller one is not.
 * - The new version has a dated entry `## [x.y.z] - YYYY-MM-DD` in CHANGELOG.md, newest first, with
 *   only the sections Added, Changed, Deprecated, Removed, Fixed, Security (Deprecated and Removed
 *   when the change deprecates or removes).
 * - A removal follows an earlier released deprecation that named a sunset date, now reached: the
 *   removed thing (or its operation) was `deprecated: true` with `x-sunset: YYYY-MM-DD` in a released
 *   copy, or a Deprecated entry of an earlier release names it in backticks with `Sunset: YYYY-MM-DD`.
 *   A new deprecation names its sunset date the same way.
 * - Every released copy is checked against the one before it, and `openapi.json` against the newest:
 *   a changed document is released by bumping the version, writing the changelog entry and keeping
 *   the copy (`npm run contract:check -- --release` writes it once everything else holds).
 *
 * Usage: node server/contract/check.ts [--root DIR] [--today YYYY-MM-DD] [--release]
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  type ChangelogEntry,
  changelogDeprecations,
  parseChangelog,
  SUNSET,
  validDate,
} from './changelog.ts';
import { type Changes, DATE, diffContracts, requiredLevel, sameJson } from './diff.ts';
import { bump, compareVersions, LEVELS, type Level, parseVersion, stepLevel } from './semver.ts';
import type { oas31 } from './shared.ts';
import { surface } from './surface.ts';

// The check's whole surface in one module, for its command line and its tests.
export { type ChangelogEntry, parseChangelog } from './changelog.ts';
export { type Changes, diffContracts, requiredLevel } from './diff.ts';
export { bump, compareVersions, type Level, parseVersion } from './semver.ts';
export { surface } from './surface.ts';

export interface Released {
  version: string;
  doc: oas31.OpenAPIObject;
}

export interface CheckInput {
  current: oas31.OpenAPIObject;
  /** Released copies in any order. */
  released: Released[];
  changelog: string;
  /** The date removals are checked against (sunset dates reached). */
  today: string;
}

export interface CheckResult {
  ok: boolean;
  problems: string[];
  /** openapi.json is a valid next release whose copy is missing (`--release` writes it). */
  releasable?: string;
  notes: string[];
}

/** A release step `prev → next` and what it is checked with. */
interface Step {
  prev: Released;
  next: Released;
  /** The releases up to `prev`. */
  history: Released[];
  changelog: { entries: ChangelogEntry[] };
  today: string;
  label: string;
}

/** One release step against the rules. */
function checkStep(step: Step): string[] {
  const changes = diffContracts(step.prev.doc, step.next.doc);
  const needed = requiredLevel(changes);
  if (!needed) return [];
  const entry = step.changelog.entries.find((e) => e.version === step.next.version);
  return [
    ...versionProblems(step, changes, needed),
    ...entryProblems(step, changes, entry),
    ...sunsetProblems(step, changes, entry),
    ...removalProblems(step, changes),
  ];
}

/** The version moves by at least the step the changes need, and by one step. */
function versionProblems({ prev, next, label }: Step, changes: Changes, needed: Level): string[] {
  const why = [
    ...changes.removed.map((r) => `  - ${r}`),
    ...changes.changed.map((r) => `  - ${r}`),
    ...changes.deprecated.map((r) => `  - ${r} deprecated`),
  ].join('\n');
  const step = stepLevel(prev.version, next.version);
  const expected = bump(prev.version, needed);
  if (!step) {
    return [
      `${label}: info.version ${next.version} is not one step from ${prev.version}; this change needs ${needed}: ${expected}` +
        (why ? `\n${why}` : ''),
    ];
  }
  if (LEVELS.indexOf(step) < LEVELS.indexOf(needed)) {
    return [
      `${label}: a ${needed} change (${expected}), but info.version went ${prev.version} → ${next.version} (${step}):\n${why}`,
    ];
  }
  return [];
}

/** The new version has a dated changelog entry with the sections its changes need. */
function entryProblems({ next, label }: Step, changes: Changes, entry: ChangelogEntry | undefined): string[] {
  if (!entry) return [`${label}: CHANGELOG.md has no entry "## [${next.version}] - YYYY-MM-DD"`];
  const problems: string[] = [];
  if (!validDate(entry.date))
    problems.push(
      `CHANGELOG.md:${entry.line}: ${next.version} needs a date: "## [${next.version}] - YYYY-MM-DD"`,
    );
  if (entry.sections.size === 0) problems.push(`CHANGELOG.md:${entry.line}: ${next.version} lists no change`);
  if (changes.removed.length && !entry.sections.has('Removed'))
    problems.push(`CHANGELOG.md:${entry.line}: ${next.version} removes but has no "### Removed" section`);
  if (changes.deprecated.length && !entry.sections.has('Deprecated'))
    problems.push(
      `CHANGELOG.md:${entry.line}: ${next.version} deprecates but has no "### Deprecated" section`,
    );
  return problems;
}

/** A new deprecation names its sunset date: `x-sunset`, or `Sunset:` in its changelog entry. */
function sunsetProblems({ label }: Step, changes: Changes, entry: ChangelogEntry | undefined): string[] {
  const entrySunset = SUNSET.test(entry?.sections.get('Deprecated') ?? '');
  if (!changes.deprecatedWithoutSunset.length || entrySunset) return [];
  return [
    `${label}: a deprecation must name its sunset date (x-sunset: YYYY-MM-DD, or "Sunset: YYYY-MM-DD" in the Deprecated entry):\n` +
      changes.deprecatedWithoutSunset.map((d) => `  - ${d}`).join('\n'),
  ];
}

/** A removal follows an earlier released deprecation with a sunset date that has come. */
function removalProblems({ prev, history, changelog, today, label }: Step, changes: Changes): string[] {
  const problems: string[] = [];
  const notes = changelogDeprecations(changelog.entries, prev.version);
  for (const removal of changes.removals) {
    let sunset: string | undefined;
    for (const release of history) {
      const nodes = surface(release.doc);
      for (const key of removal.covers) {
        const node = nodes.get(key);
        if (node?.deprecated && DATE.test(String(node.sunset ?? ''))) sunset ??= String(node.sunset);
      }
    }
    if (!sunset) {
      const note = notes.find((n) => n.sunset && removal.tokens.some((t) => n.text.includes(`\`${t}\``)));
      sunset = note?.sunset;
    }
    if (!sunset) {
      problems.push(
        `${label}: ${removal.what}, but no earlier release deprecated it with a sunset date ` +
          '(deprecated: true with x-sunset, or a Deprecated changelog entry naming it with "Sunset: YYYY-MM-DD")',
      );
    } else if (sunset > today) {
      problems.push(`${label}: ${removal.what} before its sunset date ${sunset}`);
    }
  }
  return problems;
}

export function checkContract(input: CheckInput): CheckResult {
  const problems: string[] = [];
  const notes: string[] = [];
  const changelog = parseChangelog(input.changelog);
  problems.push(...changelog.problems);
  const released = [...input.released].sort((a, b) => compareVersions(a.version, b.version));
  for (const r of released) {
    if (!parseVersion(r.version)) problems.push(`docs/contract: "${r.version}" is not a version x.y.z`);
    if (r.doc?.info?.version !== r.version)
      problems.push(`docs/contract/openapi-${r.version}.json says info.version ${r.doc?.info?.version}`);
  }
  const newest = released.at(-1);
  if (!newest) {
    problems.push(
      'docs/contract/ holds no released copy (openapi-<version>.json) to compare openapi.json with',
    );
    return { ok: false, problems, notes };
  }
  problems.push(...historyProblems(released, changelog, input.today));
  const current = currentProblems(input, released, newest, changelog);
  problems.push(...current.problems);
  notes.push(...current.notes);
  const { releasable } = current;
  const top = changelog.entries[0];
  if (
    top &&
    top.version !== (releasable ?? newest.version) &&
    compareVersions(top.version, newest.version) > 0
  )
    problems.push(`CHANGELOG.md's newest entry ${top.version} is not a released contract version`);
  return { ok: problems.length === 0, problems, releasable, notes };
}

/** Every released copy against the one before it. */
function historyProblems(
  released: Released[],
  changelog: { entries: ChangelogEntry[] },
  today: string,
): string[] {
  const problems: string[] = [];
  const first = released[0];
  if (first && !changelog.entries.some((e) => e.version === first.version && validDate(e.date)))
    problems.push(
      `CHANGELOG.md has no dated entry "## [${first.version}] - YYYY-MM-DD" for the first release`,
    );
  for (let i = 1; i < released.length; i++) {
    const [prev, next] = [released[i - 1], released[i]];
    if (!prev || !next) continue;
    const history = released.slice(0, i);
    problems.push(...checkStep({ prev, next, history, changelog, today, label: `release ${next.version}` }));
  }
  return problems;
}

/** openapi.json against the newest released copy: the same, or a valid next release to keep. */
function currentProblems(
  input: CheckInput,
  released: Released[],
  newest: Released,
  changelog: { entries: ChangelogEntry[] },
): { problems: string[]; notes: string[]; releasable?: string } {
  const currentVersion: string = input.current?.info?.version ?? '';
  if (sameJson(input.current, newest.doc))
    return { problems: [], notes: [`openapi.json is the released ${newest.version}`] };
  if (currentVersion === newest.version) return { problems: [unbumped(input.current, newest)], notes: [] };
  if (compareVersions(currentVersion, newest.version) < 0)
    return {
      problems: [`openapi.json says ${currentVersion}, older than the released ${newest.version}`],
      notes: [],
    };
  const stepProblems = checkStep({
    prev: newest,
    next: { version: currentVersion, doc: input.current },
    history: released,
    changelog,
    today: input.today,
    label: `openapi.json ${currentVersion}`,
  });
  const notKept =
    `openapi.json ${currentVersion} is not kept as released: copy it to docs/contract/openapi-${currentVersion}.json ` +
    '(npm run contract:check -- --release)';
  return {
    problems: [...stepProblems, notKept],
    notes: [],
    releasable: stepProblems.length === 0 ? currentVersion : undefined,
  };
}

/** openapi.json changed but kept the released version: what the change needs. */
function unbumped(current: oas31.OpenAPIObject, newest: Released): string {
  const changes = diffContracts(newest.doc, current);
  const needed = requiredLevel(changes) ?? 'patch';
  const why = [...changes.removed, ...changes.changed, ...changes.deprecated.map((d) => `${d} deprecated`)];
  return (
    `openapi.json differs from the released ${newest.version} but info.version is still ${newest.version}: ` +
    `this ${needed} change makes it ${bump(newest.version, needed)} (CONTRACT_VERSION in server/contract/document.ts, ` +
    'then npm run openapi), with a dated CHANGELOG.md entry' +
    (why.length ? `:\n${why.map((w) => `  - ${w}`).join('\n')}` : '')
  );
}

// ---------------------------------------------------------------------------------------------
// Files and the command line

export function readReleased(dir: string): Released[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((f) => /^openapi-(.+)\.json$/.exec(f))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ version: m[1] ?? '', doc: JSON.parse(readFileSync(join(dir, m[0]), 'utf8')) }));
}

export function runCheck(opts: { root: string; today: string; release?: boolean }): CheckResult {
  const contractDir = join(opts.root, 'docs', 'contract');
  const currentText = readFileSync(join(opts.root, 'openapi.json'), 'utf8');
  const result = checkContract({
    current: JSON.parse(currentText),
    released: readReleased(contractDir),
    changelog: readFileSync(join(opts.root, 'CHANGELOG.md'), 'utf8'),
    today: opts.today,
  });
  if (opts.release && result.releasable) {
    mkdirSync(contractDir, { recursive: true });
    writeFileSync(join(contractDir, `openapi-${result.releasable}.json`), currentText);
    return runCheck({ ...opts, release: false });
  }
  return result;
}

function main(argv: string[]) {
  const arg = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const root = resolve(arg('--root') ?? join(import.meta.dirname, '..', '..'));
  const today = arg('--today') ?? new Date().toISOString().slice(0, 10);
  const result = runCheck({ root, today, release: argv.includes('--release') });
  for (const n of result.notes) console.log(n);
  if (result.ok) {
    console.log('contract check: ok');
    return 0;
  }
  for (const p of result.problems) console.error(`contract check: ${p}`);
  return 1;
}

if (import.meta.main) process.exitCode = main(process.argv.slice(2));
