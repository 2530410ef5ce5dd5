/** A cell as text: `-` for none, lists comma-separated, timestamps to the second. */
function cell(column: string, value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  if (Array.isArray(value)) return value.join(',');
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  const text = String(value);
  return column.endsWith('_at')
    ? text.replace(/^(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)(\.\d+)?Z$/, '$1 $2Z')
    : text;
}

/**
 * Rows as a plain, left-aligned table with a header line: readable on a terminal and one record a
 * line for grep and awk when piped. `empty` is printed instead when there are no rows.
 */
export function table(
  rows: readonly Record<string, unknown>[],
  columns: readonly string[],
  empty: string,
): string {
  if (rows.length === 0) return empty;
  const lines = [columns, ...rows.map((r) => columns.map((c) => cell(c, r[c])))];
  const widths = columns.map((_, i) => Math.max(...lines.map((l) => (l[i] ?? '').length)));
  return lines
    .map((l) =>
      l
        .map((text, i) => (i === l.length - 1 ? text : text.padEnd(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
