import { isIP } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import ipaddr from 'ipaddr.js';
import { type Held, rememberFor, rememberUpTo } from './bounded-cache.ts';
import { type HostResolver, type ResolvedAddress, systemResolver } from './host-resolver.ts';

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

/** The host's checked addresses, IPv4 first (a delivery connects to the first), or why it is refused. */
export type HostVerdict = { addresses: readonly { address: string; family: 4 | 6 }[] } | UrlProblem;

/** A checked answer is kept for its records' shortest TTL, within these bounds (seconds). */
export const MIN_TTL_SECONDS = 1;
export const MAX_TTL_SECONDS = 300;
/** Refusals are kept briefly, so a host whose record is fixed is accepted again within seconds. */
export const REFUSAL_TTL_SECONDS = 5;
export const MAX_HOSTS = REMEMBERED;

export interface HostCheckOptions {
  resolver: HostResolver;
  /** Hosts (per allow list) whose verdict is kept; past that the oldest is dropped. */
  maxHosts?: number;
  /** Monotonic milliseconds; tests bring their own. */
  now?: () => number;
}

/** A host's verdict, from the kept ones while its TTL lasts; lookups of one host at once share one. */
export type HostCheck = (
  hostname: string,
  allow: readonly string[],
  timeoutMs: number,
) => Promise<HostVerdict>;

export function hostCheck({ resolver, maxHosts = MAX_HOSTS, now }: HostCheckOptions): HostCheck {
  const kept = rememberFor<HostVerdict>(maxHosts, now);
  return (hostname, allow, timeoutMs) =>
    kept(`${allow.join(',')} ${hostname}`, () => checkHost(resolver, hostname, allow, timeoutMs));
}

async function checkHost(
  resolver: HostResolver,
  hostname: string,
  allow: readonly string[],
  timeoutMs: number,
): Promise<Held<HostVerdict>> {
  const answer = await resolveWithin(resolver, hostname, timeoutMs);
  const refusal = REFUSAL_TTL_SECONDS * 1000;
  if (answer.length === 0) {
    const message = `the host ${hostname} does not resolve`;
    return { value: { code: 'WEBHOOK_HOST_UNRESOLVABLE', message }, forMs: refusal };
  }
  // Every address, not only the one connected to: a host that points partly into private space is
  // refused whole.
  if (answer.some((a) => !allowed(a.address, allow))) return { value: notPublic(hostname), forMs: refusal };
  const ttl = Math.min(...answer.map((a) => a.ttl)) || 0;
  const seconds = Math.min(MAX_TTL_SECONDS, Math.max(MIN_TTL_SECONDS, ttl));
  const addresses = answer.map(({ address, family }) => ({ address, family }));
  return { value: { addresses }, forMs: seconds * 1000 };
}

/** The resolver's answer within the deadline; none when it fails or is late (it is told to stop). */
async function resolveWithin(
  resolver: HostResolver,
  hostname: string,
  timeoutMs: number,
): Promise<ResolvedAddress[]> {
  const done = new AbortController();
  try {
    return await Promise.race([
      resolver(hostname, done.signal),
      delay(timeoutMs, [] as ResolvedAddress[], { signal: done.signal }),
    ]);
  } catch {
    return [];
  } finally {
    done.abort();
  }
}

function notPublic(hostname: string): UrlProblem {
  return {
    code: 'WEBHOOK_URL_NOT_PUBLIC',
    message: `the host ${hostname} resolves to a private or reserved address; webhook endpoints must be public`,
  };
}

let checkWebhookHost = hostCheck({ resolver: systemResolver });

/**
 * How this process resolves webhook hosts from now on (DNS settings are process-wide too): tests and
 * WEBHOOK_TEST_HOSTS bring their own resolver; no resolver means DNS again. Kept verdicts are
 * forgotten.
 */
export function setWebhookResolver(
  resolver: HostResolver = systemResolver,
  options: Omit<HostCheckOptions, 'resolver'> = {},
): void {
  checkWebhookHost = hostCheck({ resolver, ...options });
}

/**
 * Checks every address the host resolves to (kept for the answer's TTL); the delivery then connects
 * to the first of them, so no later lookup can swap in a private address (DNS rebinding).
 */
export async function resolveTarget(
  raw: string,
  allow: readonly string[],
  timeoutMs = 5000,
): Promise<Target | UrlProblem> {
  const url = parseWebhookUrl(raw);
  if (!(url instanceof URL)) return url;
  const literal = ipLiteral(url.hostname);
  if (literal) {
    if (!allowed(literal.address, allow)) return notPublic(url.hostname);
    return { url, address: literal.address, family: literal.family === 6 ? 6 : 4 };
  }
  const verdict = await checkWebhookHost(url.hostname, allow, timeoutMs);
  if ('code' in verdict) return verdict;
  const first = verdict.addresses[0] as { address: string; family: 4 | 6 };
  return { url, address: first.address, family: first.family };
}
