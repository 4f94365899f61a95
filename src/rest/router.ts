// A small route table for /api/v1: "GET /payments/:id" patterns, matched segment by segment.
import type { ServiceContext } from "../context.ts";
import { badRequest } from "../errors.ts";
import { refuseUnstorableInput } from "../shared/validation.ts";

export interface RestRequest {
  ctx: ServiceContext;
  params: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
}

export interface RestResult {
  status: number;
  body: unknown;
}

export interface Route {
  method: "GET" | "POST" | "DELETE";
  path: string;
  /** actions such as /finalize take no body: an empty one needs no Content-Type */
  bodyless?: boolean;
  /** its answer shows a secret once (a webhook signing secret): a stored Idempotency-Key replay of it is encrypted */
  revealsSecret?: boolean;
  handler(req: RestRequest): Promise<RestResult>;
}

export const ok = (body: unknown): RestResult => ({ status: 200, body });
export const created = (body: unknown): RestResult => ({ status: 201, body });

export type RouteMatch = { route: Route; params: Record<string, string> } | { allowed: string[] } | null;

export class Router {
  private readonly routes: { route: Route; segments: string[] }[] = [];

  constructor(routes: Route[]) {
    for (const route of routes) this.routes.push({ route, segments: route.path.split("/").filter(Boolean) });
  }

  /** The route for method and path; else the methods the path allows (for 405); else null (404). */
  match(method: string, path: string): RouteMatch {
    const parts = path.split("/").filter(Boolean);
    const allowed: string[] = [];
    for (const { route, segments } of this.routes) {
      const params = matchSegments(segments, parts);
      if (!params) continue;
      if (route.method === method) return { route, params };
      allowed.push(route.method);
    }
    return allowed.length ? { allowed } : null;
  }
}

function matchSegments(segments: string[], parts: string[]): Record<string, string> | null {
  if (segments.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const part = parts[i]!;
    if (segment.startsWith(":")) params[segment.slice(1)] = decodeParam(segment.slice(1), part);
    else if (segment !== part) return null;
  }
  return params;
}

/** A path parameter's text; a malformed escape (`%E0%A4%A`) or a NUL is the caller's mistake: 400. */
function decodeParam(name: string, part: string): string {
  let value: string;
  try {
    value = decodeURIComponent(part);
  } catch {
    throw badRequest(`${name} must be valid percent-encoded UTF-8`);
  }
  refuseUnstorableInput(value, name);
  return value;
}
