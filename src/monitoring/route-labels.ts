// The route label of a request on /metrics: a template, never the raw path, so that ids do not
// make a label set of their own each (/api/v1 routes are labelled by their router, rest/api.ts).
import { isApiPath } from "../rest/api.ts";

const EXACT = new Set(["/graphql", "/graphql/stream", "/health", "/ready", "/metrics", "/"]);
const PREFIXES: [RegExp, string][] = [
  [/^\/_sim(\/|$)/, "/_sim/*"],
  [/^\/c\/assets\//, "/c/assets/:file"],
  [/^\/c\/plink_/, "/c/:payment_link"],
  [/^\/c\//, "/c/:id"],
  [/^\/i\//, "/i/:id"],
  [/^\/dashboard(\/|$)/, "/dashboard/*"],
];

/** `apiRoute`: the template of the /api/v1 route that answered, when one did. */
export function routeLabelOf(path: string, apiRoute: string | undefined): string {
  if (apiRoute) return apiRoute;
  // Refused before routing: no or bad key, rate limited, unknown path.
  if (isApiPath(path)) return "/api/v1/*";
  if (EXACT.has(path)) return path;
  for (const [pattern, label] of PREFIXES) if (pattern.test(path)) return label;
  return "other";
}
