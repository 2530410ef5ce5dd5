// Contract versions `x.y.z` and the one-step bumps the versioning rule allows.

export type Level = 'patch' | 'minor' | 'major';
export const LEVELS: Level[] = ['patch', 'minor', 'major'];

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
export function stepLevel(from: string, to: string): Level | undefined {
  return LEVELS.find((l) => bump(from, l) === to);
}
