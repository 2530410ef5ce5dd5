import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { rememberUpTo } from './remember.ts';

export type UrlProblem =
  | { code: 'INVALID_WEBHOOK_URL'; message: string }
  | { code: 'WEBHOOK_URL_NOT_PUBLIC'; message: string }
  | { code: 'WEBHOOK_HOST_UNRESOLVABLE'; message: string };

export interface Target {
  url: URL;
  /** The one address the delivery connects to: the one that was checked. */
  address: string;
  family: 4 | 6;
}

const MAX_URL_LENGTH = 2048;

const REMEMBERED = 10_000;
const parsedUrls = rememberUpTo<URL | UrlProblem>(REMEMBERED);

/**
 * Parses and checks the form of a webhook URL: https, a host, no credentials. The answer depends on
 * the string alone, so a delivery run reuses it (bounded); nothing mutates the URL objects handed out.
 */
export function parseWebhookUrl(raw: string): URL | UrlProblem {
  return parsedUrls(raw, () => parseUrl(raw));
}

function parseUrl(raw: string): URL | UrlProblem {
  if (raw.length > MAX_URL_LENGTH) {
    return { code: 'INVALID_WEBHOOK_URL', message: `url must be at most ${MAX_URL_LENGTH} characters` };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { code: 'INVALID_WEBHOOK_URL', message: 'url is not a valid absolute URL' };
  }
  if (url.protocol !== 'https:') return { code: 'INVALID_WEBHOOK_URL', message: 'url must use https://' };
  if (url.username || url.password) {
    return { code: 'INVALID_WEBHOOK_URL', message: 'url must not carry credentials' };
  }
  if (!url.hostname) return { code: 'INVALID_WEBHOOK_URL', message: 'url needs a host' };
  return url;
}

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

const rangesCache = new WeakMap<readonly string[], [ipaddr.IPv4 | ipaddr.IPv6, number][]>();

/** The allow list parsed once per list (it comes from config and never changes). */
function parsedRanges(allow: readonly string[]) {
  let ranges = rangesCache.get(allow);
  if (!ranges) {
    ranges = allow.map((cidr) => ipaddr.parseCIDR(cidr));
    rangesCache.set(allow, ranges);
  }
  return ranges;
}

/**
 * Public unicast only, after unwrapping IPv4-mapped IPv6: loopback, private, link-local (cloud
 * metadata), CGNAT, ULA, multicast, unspecified, reserved and the IPv4-embedding IPv6 ranges (NAT64,
 * 6to4, Teredo) all fall outside ipaddr.js's `unicast`. `allow` (WEBHOOK_ALLOW_PRIVATE) exempts ranges
 * for development.
 */
export function isAllowedAddress(address: string, allow: readonly string[]): boolean {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.process(address);
  } catch {
    return false;
  }
  for (const range of parsedRanges(allow)) {
    if (range[0].kind() === ip.kind() && ip.match(range)) return true;
  }
  // Every public IPv6 address is in 2000::/3. ipaddr.js counts what it has no name for as unicast,
  // which would let through the deprecated IPv4-compatible form (`::127.0.0.1`) and other
  // unassigned space.
  if (ip.kind() === 'ipv6' && !ip.match(GLOBAL_UNICAST_V6)) return false;
  return ip.range() === 'unicast';
}

const verdicts = new WeakMap<readonly string[], ReturnType<typeof rememberUpTo<boolean>>>();

/** `isAllowedAddress`, remembered per allow list (a pure function of the two; bounded). */
function allowed(address: string, allow: readonly string[]): boolean {
  let known = verdicts.get(allow);
  if (!known) {
    known = rememberUpTo<boolean>(REMEMBERED);
    verdicts.set(allow, known);
  }
  return known(address, () => isAllowedAddress(address, allow));
}

/**
 * The host as an IP literal with its family, when it is one. The URL parser has already normalised
 * every IPv4 notation (octal, hex, short forms) to dotted decimal, so node's check is enough.
 */
function ipLiteral(hostname: string): { address: string; family: number } | undefined {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  const family = isIP(bare);
  return family ? { address: bare, family } : undefined;
}

/**
 * Resolves the host once and checks every address it resolves to; the delivery then connects to
 * the first, so a second lookup can never swap in a private address (DNS rebinding).
 */
export async function resolveTarget(
  raw: string,
  allow: readonly string[],
  timeoutMs = 5000,
): Promise<Target | UrlProblem> {
  const url = parseWebhookUrl(raw);
  if (!(url instanceof URL)) return url;
  const literal = ipLiteral(url.hostname);
  let addresses: { address: string; family: number }[];
  if (literal) {
    addresses = [literal];
  } else {
    let timer: NodeJS.Timeout | undefined;
    try {
      addresses = await Promise.race([
        lookup(url.hostname, { all: true, verbatim: true }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('DNS lookup timed out')), timeoutMs);
        }),
      ]);
    } catch {
      addresses = [];
    } finally {
      clearTimeout(timer);
    }
    if (addresses.length === 0) {
      return { code: 'WEBHOOK_HOST_UNRESOLVABLE', message: `the host ${url.hostname} does not resolve` };
    }
  }
  const refused = addresses.find((a) => !allowed(a.address, allow));
  if (refused) {
    return {
      code: 'WEBHOOK_URL_NOT_PUBLIC',
      message: `the host ${url.hostname} resolves to a private or reserved address; webhook endpoints must be public`,
    };
  }
  const first = addresses[0] as { address: string; family: number };
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
