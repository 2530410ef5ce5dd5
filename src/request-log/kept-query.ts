/** Parameters whose values are free text a buyer may have typed (a name, an email): never kept. */
const FREE_TEXT = new Set(['search', 'q']);

const MAX_VALUE = 200;
const MAX_QUERY = 2000;

/**
 * The query as the log keeps it: the parameters the operation declares, with their values (a
 * `search` term as `[redacted]`); any other parameter is left out, name and all, since a client may
 * have sent anything there, its key included. Null when nothing is kept.
 */
export function keptQuery(search: string, declared: readonly string[] | undefined): string | null {
  if (search === '' || !declared) return null;
  let params: URLSearchParams;
  try {
    params = new URLSearchParams(search);
  } catch {
    return null;
  }
  const kept = new URLSearchParams();
  for (const [name, value] of params) {
    if (!declared.includes(name)) continue;
    kept.append(name, FREE_TEXT.has(name) ? '[redacted]' : value.slice(0, MAX_VALUE));
  }
  const text = kept.toString();
  return text === '' ? null : text.slice(0, MAX_QUERY);
}
