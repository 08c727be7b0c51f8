// Where the service may connect on a provider's behalf (SSRF policy). Outside devnet a provider's
// base_url must not reach loopback, private, link-local (cloud metadata at 169.254.169.254), CGNAT,
// multicast or unspecified addresses, nor this service's own admin API. Checked at registration (literal
// addresses, and names that resolve to one) and again at connect time on the address actually dialled,
// so a name that later resolves elsewhere (DNS rebinding) cannot get around it.
// SVC_ALLOW_PRIVATE_PROVIDERS=1 lifts the policy for deployments whose providers live on a private net.
import dns from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

const blocked = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, bits, 'ipv6');
}

/** True for an address a provider must not point us at (IPv4-mapped IPv6 is checked as IPv4). */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare)?.[1];
  if (mapped) return blocked.check(mapped, 'ipv4');
  const version = isIP(bare);
  if (version === 4) return blocked.check(bare, 'ipv4');
  if (version === 6) return blocked.check(bare, 'ipv6');
  return false;
}

export interface EgressPolicy {
  allowPrivate: boolean;
}

export class EgressRefused extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(`${host} resolves to ${address}, a private or local address (SVC_ALLOW_PRIVATE_PROVIDERS is off)`);
  }
}

/**
 * Why `baseUrl` may not be registered under `policy`, or undefined. A name that does not resolve (yet) is
 * accepted here: the connect-time check still applies to whatever it resolves to later.
 */
export async function providerUrlRefusal(baseUrl: string, policy: EgressPolicy): Promise<string | undefined> {
  if (policy.allowPrivate) return undefined;
  let host: string;
  try {
    host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return undefined; // the URL check reports it
  }
  if (isIP(host))
    return isPrivateAddress(host) ? 'must not be a private, loopback or link-local address' : undefined;
  if (host === 'localhost' || host.endsWith('.localhost')) return 'must not be a local host name';
  const addresses = await dns.promises.lookup(host, { all: true }).catch(() => []);
  const bad = addresses.find((a) => isPrivateAddress(a.address));
  return bad ? `must not resolve to a private, loopback or link-local address (${bad.address})` : undefined;
}

/** A `lookup` for sockets that refuses private addresses (what undici's connector gives net/tls.connect). */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 0);
    const list = addresses as dns.LookupAddress[];
    const bad = list.find((a) => isPrivateAddress(a.address));
    if (bad) return callback(new EgressRefused(hostname, bad.address), '', 0);
    if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
    const first = list[0];
    if (!first) return callback(new Error(`no address for ${hostname}`), '', 0);
    callback(null, first.address, first.family);
  });
};

/** The policy for provider calls: devnet keeps loopback for its sample providers. */
export function providerEgressPolicy(config: { env: string; allowPrivateProviders: boolean }): EgressPolicy {
  return { allowPrivate: config.env === 'devnet' || config.allowPrivateProviders };
}
