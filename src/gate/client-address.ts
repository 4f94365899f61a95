// The network address a request comes from: what per-address limits (public operations, open
// streams) count by. Behind a reverse proxy the socket's peer is the proxy, so with TRUST_PROXY the
// address the proxy appended last to X-Forwarded-For is taken instead (the entries before it are the
// client's own say, and a client can write anything there).
import type { IncomingMessage } from "node:http";

const addresses = new WeakMap<Request, string>();

/** Used where a request carries no socket (a test calling app.fetch directly). */
const UNKNOWN_ADDRESS = "unknown";

export function addressOfNodeRequest(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = req.headers["x-forwarded-for"];
    const last = (Array.isArray(forwarded) ? forwarded.join(",") : forwarded)?.split(",").at(-1)?.trim();
    if (last) return last;
  }
  return req.socket.remoteAddress ?? UNKNOWN_ADDRESS;
}

/** Ties a Web-standard request to the address it came from, for the doors that take Request objects. */
export function rememberClientAddress(request: Request, address: string): void {
  addresses.set(request, address);
}

export function clientAddressOf(request: Request): string {
  return addresses.get(request) ?? UNKNOWN_ADDRESS;
}
