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
 * Usage: node scripts/contract-check.ts [--root DIR] [--today YYYY-MM-DD] [--release]
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

// biome-ignore lint/suspicious/noExplicitAny: OpenAPI documents are read as plain JSON.
type Json = any;

export type Level = 'patch' | 'minor' | 'major';
const LEVELS: Level[] = ['patch', 'minor', 'major'];
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];
const SECTIONS = ['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security'];
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export interface Released {
  version: string;
  doc: Json;
}

export interface Changes {
  removed: string[];
  changed: string[];
  deprecated: string[];
  /** Newly deprecated things that name no sunset date (`x-sunset`). */
  deprecatedWithoutSunset: string[];
  added: boolean;
  /** What each removal needs an earlier deprecation of: the thing itself or a containing one. */
  removals: Removal[];
}

interface Removal {
  what: string;
  /** Locations (in the older document) whose deprecation covers this removal, innermost first. */
  covers: string[];
  /** Names a changelog Deprecated entry may use for it, in backticks. */
  tokens: string[];
}

/** One documented thing of a document, by a stable location key. */
interface Node {
  kind: 'operation' | 'webhook' | 'parameter' | 'field' | 'response';
  types?: string;
  enum?: unknown[];
  required?: boolean;
  deprecated?: boolean;
  sunset?: unknown;
  /** Keys of the containing operation and fields, outermost first. */
  parents: string[];
  tokens: string[];
}

// ---------------------------------------------------------------------------------------------
// Versions

export function parseVersion(v: string): [number, number, number] | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(v);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

export function compareVersions(a: string, b: string): number {
  const x = parseVersion(a) ?? [0, 0, 0];
  const y = parseVersion(b) ?? [0, 0, 0];
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}

export function bump(v: string, level: Level): string {
  const [major, minor, patch] = parseVersion(v) ?? [0, 0, 0];
  if (level === 'major') return `${major + 1}.0.0`;
  if (level === 'minor') return `${major}.${minor + 1}.0`;
  return `${major}.${minor}.${patch + 1}`;
}

/** The one-step bump from `from` to `to`, if it is one. */
function stepLevel(from: string, to: string): Level | undefined {
  return LEVELS.find((l) => bump(from, l) === to);
}

// ---------------------------------------------------------------------------------------------
// What a document documents

function resolveRef(doc: Json, node: Json): Json {
  let n = node;
  for (let i = 0; n && typeof n === 'object' && typeof n.$ref === 'string' && i < 20; i++) {
    if (!n.$ref.startsWith('#/')) return n;
    n = n.$ref
      .slice(2)
      .split('/')
      .map((p: string) => p.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce((o: Json, key: string) => o?.[key], doc);
  }
  return n;
}

/** The JSON types a schema allows, `null` aside (nullability is not compared). */
function typesOf(doc: Json, schema: Json, depth = 0): string[] {
  const s = resolveRef(doc, schema);
  if (!s || typeof s !== 'object' || depth > 10) return [];
  const own = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  const union = [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])].flatMap((b: Json) =>
    typesOf(doc, b, depth + 1),
  );
  if (own.length === 0 && union.length === 0) {
    if (s.properties) own.push('object');
    else if (s.items) own.push('array');
    else if ('const' in s) own.push(typeof s.const);
  }
  return [...new Set([...own, ...union])].filter((t) => t !== 'null').sort();
}

/** Every field under a schema: `a.b`, `a[].c`, `a.*` (map values), each with its own schema. */
function walkSchema(
  doc: Json,
  schema: Json,
  prefix: string,
  visit: (path: string, s: Json, required: boolean) => void,
  seen: Set<unknown> = new Set(),
  depth = 0,
) {
  const s = resolveRef(doc, schema);
  if (!s || typeof s !== 'object' || depth > 25 || seen.has(s)) return;
  const inner = new Set(seen).add(s);
  for (const part of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) {
    walkSchema(doc, part, prefix, visit, inner, depth + 1);
  }
  const required: string[] = Array.isArray(s.required) ? s.required : [];
  for (const [name, prop] of Object.entries<Json>(s.properties ?? {})) {
    const path = prefix ? `${prefix}.${name}` : name;
    visit(path, prop, required.includes(name));
    walkSchema(doc, prop, path, visit, inner, depth + 1);
  }
  if (s.items) walkSchema(doc, s.items, `${prefix}[]`, visit, inner, depth + 1);
  if (s.additionalProperties && typeof s.additionalProperties === 'object') {
    const path = `${prefix}.*`;
    visit(path, s.additionalProperties, false);
    walkSchema(doc, s.additionalProperties, path, visit, inner, depth + 1);
  }
}

/** Enum values a schema allows, through `anyOf`/`oneOf` (a nullable enum). */
function enumOf(doc: Json, schema: Json): unknown[] | undefined {
  const s = resolveRef(doc, schema);
  if (!s || typeof s !== 'object') return undefined;
  if (Array.isArray(s.enum)) return s.enum;
  const branches = [...(s.anyOf ?? []), ...(s.oneOf ?? [])].map((b: Json) => enumOf(doc, b));
  const found = branches.filter((b): b is unknown[] => Array.isArray(b));
  return found.length ? found.flat() : undefined;
}

/** Whether a schema, or any schema it is made of, says so (a property `$ref` with siblings included). */
function flag(doc: Json, schema: Json, key: 'deprecated' | 'x-sunset'): unknown {
  if (schema && typeof schema === 'object' && key in schema) return schema[key];
  const s = resolveRef(doc, schema);
  return s && typeof s === 'object' ? s[key] : undefined;
}

/** Every documented thing of a document by location key. */
export function surface(doc: Json): Map<string, Node> {
  const out = new Map<string, Node>();
  const add = (key: string, node: Node) => out.set(key, node);
  const fields = (owner: string, parents: string[], tokens: string[], where: string, schema: Json) => {
    walkSchema(doc, schema, '', (path, s, required) => {
      const key = `${owner} ${where} ${path}`;
      const leaf = path.split('.').pop()?.replace('[]', '') ?? path;
      add(key, {
        kind: 'field',
        types: typesOf(doc, s).join('|'),
        enum: enumOf(doc, s),
        required,
        deprecated: flag(doc, s, 'deprecated') === true,
        sunset: flag(doc, s, 'x-sunset'),
        parents: [...parents, ...ancestors(owner, where, path)],
        tokens: [...tokens, path, leaf],
      });
    });
  };
  const operation = (owner: string, op: Json, kind: 'operation' | 'webhook', tokens: string[]) => {
    add(owner, {
      kind,
      deprecated: op.deprecated === true,
      sunset: op['x-sunset'],
      parents: [],
      tokens: [...tokens, ...(op.operationId ? [op.operationId] : [])],
    });
    for (const raw of op.parameters ?? []) {
      const p = resolveRef(doc, raw);
      if (!p?.name) continue;
      add(`${owner} param ${p.in}:${p.name}`, {
        kind: 'parameter',
        types: typesOf(doc, p.schema).join('|'),
        enum: enumOf(doc, p.schema),
        required: p.required === true,
        deprecated: p.deprecated === true,
        sunset: p['x-sunset'],
        parents: [owner],
        tokens: [p.name],
      });
    }
    const body = resolveRef(doc, op.requestBody);
    for (const [type, media] of Object.entries<Json>(body?.content ?? {})) {
      fields(owner, [owner], [], `request ${type}`, media?.schema);
    }
    for (const [status, raw] of Object.entries<Json>(op.responses ?? {})) {
      if (!/^2/.test(status)) continue;
      const answer = `${owner} response ${status}`;
      add(answer, { kind: 'response', parents: [owner], tokens: [status] });
      const response = resolveRef(doc, raw);
      for (const [type, media] of Object.entries<Json>(response?.content ?? {})) {
        fields(owner, [owner, answer], [], `response ${status} ${type}`, media?.schema);
      }
    }
  };
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<Json>(resolveRef(doc, item) ?? {})) {
      if (!METHODS.includes(method)) continue;
      operation(`${method.toUpperCase()} ${path}`, op, 'operation', [
        path,
        `${method.toUpperCase()} ${path}`,
      ]);
    }
  }
  for (const [event, item] of Object.entries<Json>(doc.webhooks ?? {})) {
    for (const [method, op] of Object.entries<Json>(resolveRef(doc, item) ?? {})) {
      if (!METHODS.includes(method)) continue;
      operation(`webhook ${event}`, op, 'webhook', [event]);
    }
  }
  return out;
}

/** The keys of the fields containing a field (`a`, `a.b` for `a.b.c`). */
function ancestors(owner: string, where: string, path: string): string[] {
  const out: string[] = [];
  const parts = path.split('.');
  for (let i = 1; i < parts.length; i++) {
    // `items[].sku` is under the field `items` (its array items have no key of their own).
    out.push(
      `${owner} ${where} ${parts
        .slice(0, i)
        .join('.')
        .replace(/(\[\])+$/, '')}`,
    );
  }
  return out;
}

const canonical = (v: unknown): string =>
  JSON.stringify(v, (_, value) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)))
      : value,
  );

const sameJson = (a: unknown, b: unknown) => canonical(a) === canonical(b);

/** What a client sends: parameters and request bodies of operations (a webhook's are what it receives). */
function isInput(key: string, node: Node): boolean {
  return !key.startsWith('webhook ') && (node.kind === 'parameter' || key.includes(' request '));
}

/** What changed from one document to the next, by kind. */
export function diffContracts(older: Json, newer: Json): Changes {
  const before = surface(older);
  const after = surface(newer);
  const changes: Changes = {
    removed: [],
    changed: [],
    deprecated: [],
    deprecatedWithoutSunset: [],
    added: false,
    removals: [],
  };
  const describe = (key: string, node: Node) =>
    node.kind === 'field' ? `field ${key}` : node.kind === 'webhook' ? key : `${node.kind} ${key}`;
  for (const [key, was] of before) {
    const now = after.get(key);
    if (!now) {
      // Report the outermost thing removed, not every field under it.
      if (was.parents.some((p) => before.has(p) && !after.has(p))) continue;
      const what = `${describe(key, was)} removed`;
      changes.removed.push(what);
      changes.removals.push({ what, covers: [key, ...[...was.parents].reverse()], tokens: was.tokens });
      continue;
    }
    const gone = (was.enum ?? []).filter((v) => !(now.enum ?? []).some((w) => sameJson(v, w)));
    if (was.enum && now.enum && gone.length) {
      for (const v of gone) {
        const what = `enum value ${JSON.stringify(v)} of ${describe(key, was)} removed`;
        changes.removed.push(what);
        changes.removals.push({
          what,
          covers: [key, ...[...was.parents].reverse()],
          tokens: [String(v), ...was.tokens],
        });
      }
    }
    if (was.types !== undefined && was.types !== '' && now.types !== '' && was.types !== now.types) {
      changes.changed.push(`${describe(key, was)}: type ${was.types} became ${now.types}`);
    }
    const input = isInput(key, now);
    if (input && now.required && !was.required) changes.changed.push(`${describe(key, was)} became required`);
    if (now.deprecated && !was.deprecated) {
      changes.deprecated.push(describe(key, now));
      if (!DATE.test(String(now.sunset ?? ''))) changes.deprecatedWithoutSunset.push(describe(key, now));
    }
  }
  for (const [key, now] of after) {
    if (before.has(key)) continue;
    const input = isInput(key, now);
    // A new required input on an existing operation breaks every client that does not send it.
    if (input && now.required && now.parents.every((p) => before.has(p))) {
      changes.changed.push(`${describe(key, now)} added as required`);
    }
  }
  changes.added = !sameJson(older, newer);
  return changes;
}

export function requiredLevel(c: Changes): Level | undefined {
  if (c.removed.length || c.changed.length) return 'major';
  if (c.deprecated.length) return 'minor';
  return c.added ? 'patch' : undefined;
}

// ---------------------------------------------------------------------------------------------
// The changelog

export interface ChangelogEntry {
  version: string;
  date: string | undefined;
  sections: Map<string, string>;
  line: number;
}

export function parseChangelog(text: string): { entries: ChangelogEntry[]; problems: string[] } {
  const entries: ChangelogEntry[] = [];
  const problems: string[] = [];
  let current: ChangelogEntry | undefined;
  let section: string | undefined;
  text.split(/\r?\n/).forEach((line, i) => {
    const release = /^## \[([^\]]+)\](?:\s+-\s+(\S+))?\s*$/.exec(line);
    if (release) {
      section = undefined;
      current = undefined;
      if (release[1] === 'Unreleased') return;
      current = { version: release[1] ?? '', date: release[2], sections: new Map(), line: i + 1 };
      entries.push(current);
      return;
    }
    if (/^## /.test(line)) {
      problems.push(`CHANGELOG.md:${i + 1}: "${line}" is not "## [x.y.z] - YYYY-MM-DD"`);
      current = undefined;
      return;
    }
    const heading = /^### (.*)$/.exec(line);
    if (heading && current) {
      section = heading[1]?.trim() ?? '';
      if (!SECTIONS.includes(section))
        problems.push(
          `CHANGELOG.md:${i + 1}: section "${section}" of ${current.version} is not one of ${SECTIONS.join(', ')}`,
        );
      current.sections.set(section, '');
      return;
    }
    if (current && section) current.sections.set(section, `${current.sections.get(section)}${line}\n`);
  });
  for (let i = 1; i < entries.length; i++) {
    const [prev, next] = [entries[i - 1], entries[i]];
    if (prev && next && compareVersions(prev.version, next.version) <= 0)
      problems.push(`CHANGELOG.md:${next.line}: ${next.version} comes after ${prev.version}: newest first`);
  }
  return { entries, problems };
}

function validDate(d: string | undefined): boolean {
  if (!d || !DATE.test(d)) return false;
  const t = new Date(`${d}T00:00:00Z`);
  return !Number.isNaN(t.getTime()) && t.toISOString().startsWith(d);
}

const SUNSET = /sunset:?\s*(\d{4}-\d{2}-\d{2})/i;

/** Deprecated entries of released versions up to `upTo`: each bullet with the sunset date it names. */
function changelogDeprecations(entries: ChangelogEntry[], upTo: string) {
  const out: { version: string; text: string; sunset: string | undefined }[] = [];
  for (const e of entries) {
    if (compareVersions(e.version, upTo) > 0) continue;
    for (const item of (e.sections.get('Deprecated') ?? '').split(/\n(?=[-*] )/)) {
      if (item.trim()) out.push({ version: e.version, text: item, sunset: SUNSET.exec(item)?.[1] });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The check

export interface CheckInput {
  current: Json;
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

/** One release step `prev → next` against the rules; `history` = the releases up to `prev`. */
function checkStep(
  prev: Released,
  next: Released,
  history: Released[],
  changelog: { entries: ChangelogEntry[] },
  today: string,
  label: string,
): string[] {
  const problems: string[] = [];
  const changes = diffContracts(prev.doc, next.doc);
  const needed = requiredLevel(changes);
  if (!needed) return problems;
  const why = [
    ...changes.removed.map((r) => `  - ${r}`),
    ...changes.changed.map((r) => `  - ${r}`),
    ...changes.deprecated.map((r) => `  - ${r} deprecated`),
  ].join('\n');
  const step = stepLevel(prev.version, next.version);
  const expected = bump(prev.version, needed);
  if (!step) {
    problems.push(
      `${label}: info.version ${next.version} is not one step from ${prev.version}; this change needs ${needed}: ${expected}` +
        (why ? `\n${why}` : ''),
    );
  } else if (LEVELS.indexOf(step) < LEVELS.indexOf(needed)) {
    problems.push(
      `${label}: a ${needed} change (${expected}), but info.version went ${prev.version} → ${next.version} (${step}):\n${why}`,
    );
  }
  const entry = changelog.entries.find((e) => e.version === next.version);
  if (!entry) {
    problems.push(`${label}: CHANGELOG.md has no entry "## [${next.version}] - YYYY-MM-DD"`);
  } else {
    if (!validDate(entry.date))
      problems.push(
        `CHANGELOG.md:${entry.line}: ${next.version} needs a date: "## [${next.version}] - YYYY-MM-DD"`,
      );
    if (entry.sections.size === 0)
      problems.push(`CHANGELOG.md:${entry.line}: ${next.version} lists no change`);
    if (changes.removed.length && !entry.sections.has('Removed'))
      problems.push(`CHANGELOG.md:${entry.line}: ${next.version} removes but has no "### Removed" section`);
    if (changes.deprecated.length && !entry.sections.has('Deprecated'))
      problems.push(
        `CHANGELOG.md:${entry.line}: ${next.version} deprecates but has no "### Deprecated" section`,
      );
  }
  // A new deprecation names its sunset date: `x-sunset`, or `Sunset:` in its changelog entry.
  const entrySunset = SUNSET.test(entry?.sections.get('Deprecated') ?? '');
  if (changes.deprecatedWithoutSunset.length && !entrySunset) {
    problems.push(
      `${label}: a deprecation must name its sunset date (x-sunset: YYYY-MM-DD, or "Sunset: YYYY-MM-DD" in the Deprecated entry):\n` +
        changes.deprecatedWithoutSunset.map((d) => `  - ${d}`).join('\n'),
    );
  }
  // A removal follows an earlier released deprecation with a sunset date that has come.
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
  const first = released[0];
  if (first && !changelog.entries.some((e) => e.version === first.version && validDate(e.date)))
    problems.push(
      `CHANGELOG.md has no dated entry "## [${first.version}] - YYYY-MM-DD" for the first release`,
    );
  for (let i = 1; i < released.length; i++) {
    const [prev, next] = [released[i - 1], released[i]];
    if (!prev || !next) continue;
    problems.push(
      ...checkStep(prev, next, released.slice(0, i), changelog, input.today, `release ${next.version}`),
    );
  }
  const top = changelog.entries[0];
  const currentVersion: string = input.current?.info?.version ?? '';
  let releasable: string | undefined;
  if (sameJson(input.current, newest.doc)) {
    notes.push(`openapi.json is the released ${newest.version}`);
  } else if (currentVersion === newest.version) {
    const needed = requiredLevel(diffContracts(newest.doc, input.current)) ?? 'patch';
    const changes = diffContracts(newest.doc, input.current);
    const why = [...changes.removed, ...changes.changed, ...changes.deprecated.map((d) => `${d} deprecated`)];
    problems.push(
      `openapi.json differs from the released ${newest.version} but info.version is still ${newest.version}: ` +
        `this ${needed} change makes it ${bump(newest.version, needed)} (CONTRACT_VERSION in server/openapi.ts, ` +
        'then npm run openapi), with a dated CHANGELOG.md entry' +
        (why.length ? `:\n${why.map((w) => `  - ${w}`).join('\n')}` : ''),
    );
  } else if (compareVersions(currentVersion, newest.version) < 0) {
    problems.push(`openapi.json says ${currentVersion}, older than the released ${newest.version}`);
  } else {
    const stepProblems = checkStep(
      newest,
      { version: currentVersion, doc: input.current },
      released,
      changelog,
      input.today,
      `openapi.json ${currentVersion}`,
    );
    problems.push(...stepProblems);
    if (stepProblems.length === 0) releasable = currentVersion;
    problems.push(
      `openapi.json ${currentVersion} is not kept as released: copy it to docs/contract/openapi-${currentVersion}.json ` +
        '(npm run contract:check -- --release)',
    );
  }
  if (
    top &&
    top.version !== (releasable ?? newest.version) &&
    compareVersions(top.version, newest.version) > 0
  )
    problems.push(`CHANGELOG.md's newest entry ${top.version} is not a released contract version`);
  return { ok: problems.length === 0, problems, releasable, notes };
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
  const root = resolve(arg('--root') ?? join(import.meta.dirname, '..'));
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
