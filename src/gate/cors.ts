// Browsers of other origins may call the GraphQL doors only from CORS_ORIGINS (none by default: the
// checkout page and the dashboard are same-origin). API keys travel in the Authorization header, not
// in cookies, so no credentials are allowed.
import { type CORSOptions, getCORSHeadersByRequestAndOptions } from "@whatwg-node/server";

/** yoga's CORS options for the request: none (false) unless its Origin is configured. */
export function corsOptionsFor(request: Request, origins: string[], methods: string[]): CORSOptions | false {
  const origin = request.headers.get("origin");
  return origin && origins.includes(origin) ? { origin, credentials: false, methods } : false;
}

/** The same as response headers, for a door that is not yoga. */
export function corsHeadersFor(request: Request, origins: string[], methods: string[]): Record<string, string> {
  const options = corsOptionsFor(request, origins, methods);
  return (options && getCORSHeadersByRequestAndOptions(request, options)) || {};
}
