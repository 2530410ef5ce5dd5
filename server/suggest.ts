/** "Did you mean": for a CLI command or flag, a query parameter, an event name. */

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = d[i] as number[];
      const above = d[i - 1] as number[];
      row[j] = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
      }
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

/**
 * The candidates the input most likely meant: the nearest by edit distance when it is close enough
 * for its length (about one typo in three characters, at most 3) and unambiguous, else those that
 * start with it (`stores` → `stores:create`, `stores:list`), at most four. Empty when nothing fits.
 */
export function suggest(input: string, candidates: readonly string[]): string[] {
  const lower = input.toLowerCase();
  const limit = Math.min(3, Math.max(1, Math.floor(lower.length / 3)));
  const scored = candidates
    .map((c) => ({ c, distance: editDistance(lower, c.toLowerCase()) }))
    .sort((a, b) => a.distance - b.distance);
  const [best, second] = scored;
  if (best && best.distance <= limit && best.distance < (second?.distance ?? Number.POSITIVE_INFINITY)) {
    return [best.c];
  }
  const prefixed = lower ? candidates.filter((c) => c.toLowerCase().startsWith(lower)) : [];
  return prefixed.length <= 4 ? prefixed : [];
}

/** ` Did you mean "x"?` / ` Did you mean one of "x", "y"?`, or nothing. */
export function didYouMean(suggestions: readonly string[]): string {
  if (suggestions.length === 0) return '';
  const quoted = suggestions.map((s) => `"${s}"`).join(', ');
  return suggestions.length === 1 ? ` Did you mean ${quoted}?` : ` Did you mean one of ${quoted}?`;
}
