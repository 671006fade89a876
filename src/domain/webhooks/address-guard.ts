import { BlockList, isIP } from 'node:net';
import type { Environment } from '../model.ts';

/**
 * The SSRF guard (docs/decisions.md §27): what an endpoint's URL may be, and which addresses are not
 * public: loopback, private, link-local, shared, documentation, multicast and reserved ranges, in IPv4
 * and IPv6, and every IPv4-mapped or -compatible IPv6 address (whatever IPv4 address it carries).
 */
const NOT_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  NOT_PUBLIC.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  NOT_PUBLIC.addSubnet(net, prefix, 'ipv6');
// IPv6 forms that carry an IPv4 address, kept apart: BlockList checks an IPv4 address against IPv6
// rules in its mapped form, so in NOT_PUBLIC these would match every IPv4 address.
const CARRYING_IPV4 = new BlockList();
CARRYING_IPV4.addSubnet('::ffff:0:0', 96, 'ipv6');
CARRYING_IPV4.addSubnet('::', 96, 'ipv6');

/** True for an address on the public internet; false for any other, and for what is no address at all. */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 0) return false;
  if (family === 6 && CARRYING_IPV4.check(bare, 'ipv6')) return false;
  return !NOT_PUBLIC.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}

// Link-local addresses (a cloud's metadata service at 169.254.169.254, fe80::/10) and 0.0.0.0/8, which
// reaches this machine: not even the sandbox's endpoints may reach them, unless the operator allows private ones.
const LINK_LOCAL = new BlockList();
LINK_LOCAL.addSubnet('169.254.0.0', 16, 'ipv4');
LINK_LOCAL.addSubnet('0.0.0.0', 8, 'ipv4');
LINK_LOCAL.addSubnet('fe80::', 10, 'ipv6');

/** True for a link-local address or 0.0.0.0/8, in any of its IPv6 forms too. */
export function isLinkLocal(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return LINK_LOCAL.check(bare, 'ipv4');
  if (family !== 6) return false;
  // BlockList matches an IPv4-mapped IPv6 address (`::ffff:a9fe:a9fe`) against the IPv4 rules.
  return LINK_LOCAL.check(bare, 'ipv6');
}

/** Whether an environment's endpoints may reach private addresses: the sandbox's always, production's with the operator's setting. */
export const privateAllowed = (environment: Environment, operatorAllows: boolean) =>
  environment === 'sandbox' || operatorAllows;

/** The URL as written, checked for what needs no network: a reason to refuse it, or the parsed URL. */
export function checkEndpointUrl(
  text: string,
  environment: Environment,
  allowPrivate: boolean,
  allowLinkLocal = false,
): URL | string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return 'The URL is not a valid absolute URL (https://example.com/webhooks).';
  }
  if (text.length > 2000) return 'The URL is longer than 2000 characters.';
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return 'The URL must be https:// (or http:// in the sandbox).';
  if (environment === 'production' && url.protocol !== 'https:') return 'A production endpoint must be https://.';
  if (url.username || url.password) return 'The URL must not hold a user name or password.';
  if (url.hash) return 'The URL must not have a #fragment.';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const local = host === 'localhost' || host.endsWith('.localhost') || (!host.includes('.') && isIP(host) === 0);
  if (!allowPrivate && (local || (isIP(host) !== 0 && !isPublicAddress(host))))
    return `${url.hostname} is not a public address: production endpoints must be reachable on the internet (the operator's WEBHOOKS_ALLOW_PRIVATE=true allows private ones).`;
  if (!allowLinkLocal && isIP(host) !== 0 && isLinkLocal(host))
    return `${url.hostname} is a link-local address (a cloud's metadata service): no endpoint may be one (the operator's WEBHOOKS_ALLOW_PRIVATE=true allows it).`;
  return url;
}
