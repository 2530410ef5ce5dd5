import { DATE } from './diff.ts';
import { compareVersions } from './semver.ts';

// CHANGELOG.md as the contract check reads it: dated releases, newest first, Keep a Changelog sections.

const SECTIONS = ['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security'];
export const SUNSET = /sunset:?\s*(\d{4}-\d{2}-\d{2})/i;

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

export function validDate(d: string | undefined): boolean {
  if (!d || !DATE.test(d)) return false;
  const t = new Date(`${d}T00:00:00Z`);
  return !Number.isNaN(t.getTime()) && t.toISOString().startsWith(d);
}

/** Deprecated entries of released versions up to `upTo`: each bullet with the sunset date it names. */
export function changelogDeprecations(entries: ChangelogEntry[], upTo: string) {
  const out: { version: string; text: string; sunset: string | undefined }[] = [];
  for (const e of entries) {
    if (compareVersions(e.version, upTo) > 0) continue;
    for (const item of (e.sections.get('Deprecated') ?? '').split(/\n(?=[-*] )/)) {
      if (item.trim()) out.push({ version: e.version, text: item, sunset: SUNSET.exec(item)?.[1] });
    }
  }
  return out;
}
