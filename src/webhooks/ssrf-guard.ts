// Webhook targets must not reach the service's own network: loopback, private, link-local (cloud
// metadata lives at 169.254.169.254) and every other special address are refused, in sandbox as in
// production, unless the operator allows them (WEBHOOK_ALLOW_PRIVATE=true).
// Checked at registration and again on every connection, on the addresses the socket actually uses,
// so a DNS answer that changes after registration cannot slip through. When private targets are
// allowed, the answer of one is still never kept (http-sender.ts), so the delivery log cannot be
// used to read the service's own network.
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOptions } from "node:dns";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

/** Only plain unicast is public; every special range ipaddr.js knows (private, reserved, ...) is not. */
const isPublicIPv4 = (address: ipaddr.IPv4) => address.range() === "unicast";

const GLOBAL_UNICAST = ipaddr.parseCIDR("2000::/3");
/** RFC 8215 local-use NAT64: each site picks where the IPv4 address sits, so nothing in it is judged public. */
const LOCAL_USE_NAT64 = ipaddr.parseCIDR("64:ff9b:1::/48");

const ipv4From = (high: number, low: number) => ipaddr.fromByteArray([high >> 8, high & 0xff, low >> 8, low & 0xff]) as ipaddr.IPv4;

/**
 * The IPv4 addresses an IPv6 address leads to: mapped (::ffff:a.b.c.d), translated
 * (::ffff:0:a.b.c.d), compatible (::a.b.c.d), NAT64 (64:ff9b::/96), 6to4 (2002:aabb:ccdd::) and
 * Teredo (its server, and its client, stored inverted). null: an address of its own.
 */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] | null {
  const p = address.parts;
  switch (address.range()) {
    case "ipv4Mapped":
    case "rfc6145":
    case "rfc6052":
      return [ipv4From(p[6]!, p[7]!)];
    case "6to4":
      return [ipv4From(p[1]!, p[2]!)];
    case "teredo":
      return [ipv4From(p[2]!, p[3]!), ipv4From(~p[6]! & 0xffff, ~p[7]! & 0xffff)];
  }
  // IPv4-compatible (deprecated, but some stacks still route it): the first 96 bits are zero.
  if (p.slice(0, 6).every((part) => part === 0) && address.range() === "unicast") return [ipv4From(p[6]!, p[7]!)];
  return null;
}

/**
 * True for an address a webhook must not reach unless the operator allows private targets: anything
 * but public unicast, judged on the IPv4 address inside the IPv6 forms that carry one. Not an IP
 * address at all: true.
 */
export function isPrivateAddress(address: string): boolean {
  if (!isIP(address)) return true;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv4") return !isPublicIPv4(parsed as ipaddr.IPv4);
  const v6 = parsed as ipaddr.IPv6;
  if (v6.match(LOCAL_USE_NAT64)) return true;
  const embedded = embeddedIPv4(v6);
  if (embedded) return !embedded.every(isPublicIPv4);
  return v6.range() !== "unicast" || !v6.match(GLOBAL_UNICAST);
}

export class ForbiddenTargetError extends Error {
  readonly code = "EFORBIDDENTARGET";
  constructor(host: string, address: string) {
    super(`${host} resolves to ${address}, a private or reserved address; refused`);
    this.name = "ForbiddenTargetError";
  }
}

/** URL hostnames keep IPv6 literals in brackets. */
export const bareHost = (hostname: string) => hostname.replace(/^\[(.*)\]$/, "$1");

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A drop-in for dns.lookup (net.connect's `lookup` option) that fails when any address of the host
 * is private. Sockets made with it can only ever be connected to public addresses.
 */
export function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true } as LookupAllOptions, (error, addresses) => {
    if (error) return callback(error, []);
    const bad = addresses.find((a) => isPrivateAddress(a.address));
    if (bad) return callback(new ForbiddenTargetError(hostname, bad.address), []);
    if (options.all) return callback(null, addresses);
    const first = addresses[0];
    if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), []);
    callback(null, first.address, first.family);
  });
}

const REGISTRATION_LOOKUP_MS = 3_000;

/**
 * The registration-time check: the host must not be, or resolve to, a private address. A name that
 * does not resolve (yet) is accepted; the connect-time check still applies to every delivery.
 * `hostname` is a WHATWG URL's, so IPv4 written in decimal, octal or hex is already dotted-decimal.
 */
export async function findPrivateAddress(hostname: string): Promise<string | null> {
  const host = bareHost(hostname);
  if (isIP(host)) return isPrivateAddress(host) ? host : null;
  const addresses = await new Promise<LookupAddress[]>((resolve) => {
    const timer = setTimeout(() => resolve([]), REGISTRATION_LOOKUP_MS);
    dnsLookup(host, { all: true }, (error, found) => {
      clearTimeout(timer);
      resolve(error ? [] : found);
    });
  });
  return addresses.find((a) => isPrivateAddress(a.address))?.address ?? null;
}
