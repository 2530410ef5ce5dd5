/**
 * Which redirect URIs a client may register, and when a request's redirect URI is one it registered.
 * Three kinds, as RFC 8252 and the MCP authorization spec allow:
 * - `https`, for web apps;
 * - `http` on the loopback (`localhost`, `127.0.0.1`, `[::1]`), for native and desktop apps, which
 *   open a port when they start (§7.3): any port matches;
 * - a private-use scheme of a native app (§7.1), such as `com.example.app:/cb` or `cursor://…`.
 */

const LOOPBACK = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?(?=[/?]|$)/i;

/** RFC 3986 scheme syntax, with the colon. */
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/**
 * Schemes a browser or the operating system already gives a meaning: a redirect there would run
 * script, read a file or start a call, never reach an app's callback.
 */
const RESERVED_SCHEMES = new Set([
  'about:',
  'blob:',
  'chrome:',
  'data:',
  'file:',
  'filesystem:',
  'ftp:',
  'intent:',
  'javascript:',
  'mailto:',
  'sms:',
  'tel:',
  'urn:',
  'view-source:',
  'vbscript:',
  'ws:',
  'wss:',
]);

/** Why a redirect URI cannot be registered, or undefined when it can. */
export function redirectUriProblem(raw: string): string | undefined {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return `not an absolute URI: ${raw}`;
  }
  if (!SCHEME.test(raw)) return `not an absolute URI: ${raw}`;
  if (u.hash || raw.includes('#')) return `must not have a fragment: ${raw}`;
  if (u.username || u.password) return `must not carry credentials: ${raw}`;
  if (u.protocol === 'https:') return undefined;
  if (u.protocol === 'http:') {
    if (LOOPBACK.test(raw)) return undefined;
    return `http is allowed only on the loopback (localhost, 127.0.0.1 or [::1]) for native apps; use https: ${raw}`;
  }
  if (RESERVED_SCHEMES.has(u.protocol)) return `the ${u.protocol} scheme cannot receive a redirect: ${raw}`;
  return undefined;
}

/** A loopback redirect URI with its port taken out, or undefined for any other URI. */
function loopbackWithoutPort(raw: string): string | undefined {
  const m = LOOPBACK.exec(raw);
  return m ? `http://${m[1]?.toLowerCase()}${raw.slice(m[0].length)}` : undefined;
}

/**
 * Whether a request's redirect URI is one the client registered: the same text exactly, except that
 * a loopback URI may name any port (RFC 8252 §7.3), since a native app gets its port when it starts.
 */
export function redirectUriRegistered(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  const loose = loopbackWithoutPort(requested);
  if (loose === undefined || !URL.canParse(requested)) return false;
  return registered.some((r) => loopbackWithoutPort(r) === loose);
}
