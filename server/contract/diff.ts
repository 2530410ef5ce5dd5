import type { Level } from './semver.ts';
import type { oas31 } from './shared.ts';
import { type Node, surface } from './surface.ts';

// What changed from one contract to the next, by the versioning rule's kinds of change.

export const DATE = /^\d{4}-\d{2}-\d{2}$/;

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

export interface Removal {
  what: string;
  /** Locations (in the older document) whose deprecation covers this removal, innermost first. */
  covers: string[];
  /** Names a changelog Deprecated entry may use for it, in backticks. */
  tokens: string[];
}

const canonical = (v: unknown): string =>
  JSON.stringify(v, (_, value) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)))
      : value,
  );

export const sameJson = (a: unknown, b: unknown) => canonical(a) === canonical(b);

/** What a client sends: parameters and request bodies of operations (a webhook's are what it receives). */
function isInput(key: string, node: Node): boolean {
  return !key.startsWith('webhook ') && (node.kind === 'parameter' || key.includes(' request '));
}

const describe = (key: string, node: Node) =>
  node.kind === 'field' ? `field ${key}` : node.kind === 'webhook' ? key : `${node.kind} ${key}`;

export function diffContracts(older: oas31.OpenAPIObject, newer: oas31.OpenAPIObject): Changes {
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
  for (const [key, was] of before) {
    const now = after.get(key);
    if (now) compareNode(changes, key, was, now);
    // Report the outermost thing removed, not every field under it.
    else if (!was.parents.some((p) => before.has(p) && !after.has(p))) {
      const what = `${describe(key, was)} removed`;
      changes.removed.push(what);
      changes.removals.push({ what, covers: [key, ...[...was.parents].reverse()], tokens: was.tokens });
    }
  }
  for (const [key, now] of after) {
    if (before.has(key)) continue;
    // A new required input on an existing operation breaks every client that does not send it.
    if (isInput(key, now) && now.required && now.parents.every((p) => before.has(p))) {
      changes.changed.push(`${describe(key, now)} added as required`);
    }
  }
  changes.added = !sameJson(older, newer);
  return changes;
}

/** One thing in both documents: its removed enum values, changed type, new requirement, deprecation. */
function compareNode(changes: Changes, key: string, was: Node, now: Node) {
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
  if (isInput(key, now) && now.required && !was.required)
    changes.changed.push(`${describe(key, was)} became required`);
  if (now.deprecated && !was.deprecated) {
    changes.deprecated.push(describe(key, now));
    if (!DATE.test(String(now.sunset ?? ''))) changes.deprecatedWithoutSunset.push(describe(key, now));
  }
}

export function requiredLevel(c: Changes): Level | undefined {
  if (c.removed.length || c.changed.length) return 'major';
  if (c.deprecated.length) return 'minor';
  return c.added ? 'patch' : undefined;
}
