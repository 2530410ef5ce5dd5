const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses `250ms`, `30s`, `5m`, `2h`, `1d` (or a bare number of milliseconds) into milliseconds. */
export function parseDuration(value: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(value);
  if (!match) return undefined;
  const amount = Number(match[1]);
  const unit = UNIT_MS[match[2] ?? 'ms'] ?? 1;
  return Math.round(amount * unit);
}
