import { lookup, Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
  /** Seconds the answer may be kept. */
  ttl: number;
}

/**
 * The addresses a hostname resolves to, with how long each may be kept; none when it does not
 * resolve. It should stop when `signal` aborts (the caller stops waiting for it then anyway).
 */
export type HostResolver = (hostname: string, signal: AbortSignal) => Promise<ResolvedAddress[]>;

/** getaddrinfo gives no TTL: its answers are kept this long. */
export const LOOKUP_TTL_SECONDS = 5;
/** How long an answer from WEBHOOK_TEST_HOSTS is kept (it cannot change while the process runs). */
export const TEST_HOSTS_TTL_SECONDS = 60;

/** RFC 6761: localhost names are answered by the system and never asked of DNS. */
function isLocalhostName(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost');
}

async function fromLookup(hostname: string): Promise<ResolvedAddress[]> {
  const all = await lookup(hostname, { all: true, verbatim: true }).catch(() => []);
  return all.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4, ttl: LOOKUP_TTL_SECONDS }));
}

/**
 * DNS A and AAAA records with their TTLs (IPv4 first: a worker may have no IPv6 route, and only one
 * address is connected to). A name DNS does not answer for (an /etc/hosts or mDNS name, or a
 * resolver c-ares cannot reach) falls back to the system's getaddrinfo, as before the cache.
 */
export const systemResolver: HostResolver = async (hostname, signal) => {
  if (isLocalhostName(hostname)) return fromLookup(hostname);
  // A channel per resolution, so a deadline cancels only its own queries; resolutions are rare now
  // that answers are kept for their TTL.
  const dns = new Resolver();
  const cancel = () => dns.cancel();
  signal.addEventListener('abort', cancel, { once: true });
  try {
    const [v4, v6] = await Promise.all([
      dns.resolve4(hostname, { ttl: true }).catch(() => []),
      dns.resolve6(hostname, { ttl: true }).catch(() => []),
    ]);
    const found: ResolvedAddress[] = [
      ...v4.map((r) => ({ address: r.address, family: 4 as const, ttl: r.ttl })),
      ...v6.map((r) => ({ address: r.address, family: 6 as const, ttl: r.ttl })),
    ];
    if (found.length > 0) return found;
  } finally {
    signal.removeEventListener('abort', cancel);
  }
  signal.throwIfAborted();
  return fromLookup(hostname);
};

/**
 * Names of WEBHOOK_TEST_HOSTS answered from the map, any other through `fallback`. The answers are
 * checked like any other: loopback still needs WEBHOOK_ALLOW_PRIVATE.
 */
export function testHostsResolver(
  hosts: ReadonlyMap<string, readonly string[]>,
  fallback: HostResolver = systemResolver,
): HostResolver {
  return async (hostname, signal) => {
    const addresses = hosts.get(hostname);
    if (!addresses) return fallback(hostname, signal);
    return addresses.map((address) => ({
      address,
      family: isIP(address) === 6 ? 6 : 4,
      ttl: TEST_HOSTS_TTL_SECONDS,
    }));
  };
}
