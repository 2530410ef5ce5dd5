import type { IncomingMessage } from 'node:http';

/**
 * The request target as every route reads it: origin-form (`/path?query`), with `path` and `search`
 * split once. An absolute-form target (`GET http://host/x`, which RFC 9112 §3.2.2 says a server must
 * accept) is reduced to its origin-form; one that is no URL at all (`GET http://[/x`), the
 * asterisk-form, or anything else that cannot be a path is refused before routing.
 */
export interface RequestTarget {
  path: string;
  /** The query without its `?` (percent-encoded, as sent). */
  search: string;
}

const BASE = 'http://internal';

export function readTarget(req: IncomingMessage): RequestTarget | undefined {
  const raw = req.url ?? '/';
  let url: URL;
  try {
    // Concatenated, not resolved: `//evil/x` is a path here, never a host.
    url = raw.startsWith('/') ? new URL(BASE + raw) : new URL(raw);
  } catch {
    return undefined;
  }
  let origin = raw;
  if (!raw.startsWith('/')) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    origin = url.pathname + url.search;
    req.url = origin;
  }
  // Routes match on the raw path: take it as sent (up to `?`), not as the URL parser normalised it.
  const q = origin.indexOf('?');
  return {
    path: q < 0 ? origin : origin.slice(0, q),
    search: q < 0 ? '' : origin.slice(q + 1),
  };
}
