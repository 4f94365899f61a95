// Webhook targets must not reach the service's own network (decisions.md): loopback, private,
// link-local (cloud metadata lives at 169.254.169.254) and other special addresses are refused,
// in production, unless the operator allows them; sandbox endpoints may target them (local testing).
// Checked at registration and again on every connection, on the addresses the socket actually uses,
// so a DNS answer that changes after registration cannot slip through.
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOptions } from "node:dns";
import { BlockList, isIP } from "node:net";
import type { Environment } from "../context.ts";

const blocked = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this" network
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["64:ff9b::", 96], // NAT64 can reach any IPv4 address
  ["fc00::", 7], // unique local (AWS metadata fd00:ec2::254 too)
  ["fe80::", 10],
  ["ff00::", 8],
] as const) {
  blocked.addSubnet(network, prefix, "ipv6");
}

/** True for an address a production webhook must not reach. IPv4-mapped IPv6 is judged as IPv4. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, "ipv4");
  if (family === 6) return blocked.check(address, "ipv6");
  return true;
}

export class ForbiddenTargetError extends Error {
  readonly code = "EFORBIDDENTARGET";
  constructor(host: string, address: string) {
    super(`${host} resolves to ${address}, a private or reserved address; refused`);
    this.name = "ForbiddenTargetError";
  }
}

/** Private targets are fine in sandbox, or anywhere the operator allowed them. */
export const privateTargetsAllowed = (environment: string, allowPrivate: boolean) =>
  allowPrivate || (environment as Environment) === "sandbox";

/** URL hostnames keep IPv6 literals in brackets. */
export const bareHost = (hostname: string) => hostname.replace(/^\[(.*)\]$/, "$1");

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A drop-in for dns.lookup (net.connect's `lookup` option) that fails when any address of the host
 * is forbidden. Sockets made with it can only ever be connected to allowed addresses.
 */
export function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true } as LookupAllOptions, (error, addresses) => {
    if (error) return callback(error, []);
    const bad = addresses.find((a) => isForbiddenAddress(a.address));
    if (bad) return callback(new ForbiddenTargetError(hostname, bad.address), []);
    if (options.all) return callback(null, addresses);
    const first = addresses[0];
    if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), []);
    callback(null, first.address, first.family);
  });
}

const REGISTRATION_LOOKUP_MS = 3_000;

/**
 * The registration-time check: the host must not be, or resolve to, a forbidden address. A name
 * that does not resolve (yet) is accepted; the connect-time check still applies to every delivery.
 */
export async function findForbiddenAddress(hostname: string): Promise<string | null> {
  const host = bareHost(hostname);
  if (isIP(host)) return isForbiddenAddress(host) ? host : null;
  const addresses = await new Promise<LookupAddress[]>((resolve) => {
    const timer = setTimeout(() => resolve([]), REGISTRATION_LOOKUP_MS);
    dnsLookup(host, { all: true }, (error, found) => {
      clearTimeout(timer);
      resolve(error ? [] : found);
    });
  });
  return addresses.find((a) => isForbiddenAddress(a.address))?.address ?? null;
}
