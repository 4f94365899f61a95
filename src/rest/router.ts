// A small route table for /api/v1: "GET /payments/:id" patterns, matched segment by segment.
import type { z } from "zod";
import type { ServiceContext } from "../context.ts";
import { badRequest } from "../errors.ts";
import type { Permission } from "../modules/users/roles.ts";
import { parseInput, refuseUnstorableInput } from "../shared/validation.ts";

/** What the router hands a route: the caller's context and the request's raw parts. */
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

/** Error statuses a route may answer; each has the one-field body `{"error": "..."}`. */
export type ErrorStatus = 400 | 401 | 404 | 409 | 413 | 415 | 429;

/**
 * One operation of /api/v1: how the router finds it, the zod schemas it validates its input with,
 * and what it answers. The OpenAPI document (src/rest/openapi.ts) is made from these same fields.
 */
export interface Route {
  method: "GET" | "POST" | "DELETE";
  path: string;
  /** the operation's name in the OpenAPI document (and in generated clients) */
  operationId: string;
  summary: string;
  /** query parameters, an object of them; unknown ones are ignored */
  query?: z.ZodObject;
  /** the JSON body of a POST */
  body?: z.ZodType;
  /** the success status (201 for a create) and its body */
  status: 200 | 201;
  response: z.ZodType;
  /**
   * Errors of this operation's own, with what they mean; those every operation may answer (400,
   * 401, 429), every POST (409 for a reused Idempotency-Key, 413, 415) and every operation on an
   * id (404) are added by the document.
   */
  errors?: Partial<Record<ErrorStatus, string>>;
  /** actions such as /finalize take no body: an empty one needs no Content-Type */
  bodyless?: boolean;
  /** its answer shows a secret once (a webhook signing secret): a stored Idempotency-Key replay of it is encrypted */
  revealsSecret?: boolean;
  /** what the calling key's role must grant, as for the same operation in GraphQL; by default a read for a GET, else a write */
  needs?: Permission;
  /** validates the request with `query` and `body`, then answers */
  handler(req: RestRequest): Promise<RestResult>;
}

/** The permission a route needs of its caller (src/modules/users/roles.ts). */
export const permissionOf = (route: Route): Permission => route.needs ?? (route.method === "GET" ? "read" : "write");

/** `{ id: string }` for "/payments/:id". */
type PathParams<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? { [K in Name]: string } & PathParams<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? { [K in Name]: string }
    : Record<never, string>;

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

interface RouteDefinition<P extends string, Q, B, R extends z.ZodType> extends Omit<Route, "path" | "query" | "body" | "status" | "response" | "handler"> {
  path: P;
  query?: Q;
  body?: B;
  status?: 200 | 201;
  response: R;
  /** gets its input parsed by `query` and `body`; returns the body of `response`, sent with `status` */
  handler(req: { ctx: ServiceContext; params: PathParams<P>; query: Parsed<Q>; body: Parsed<B> }): Promise<z.infer<R>>;
}

/**
 * A route whose handler gets its query and body parsed by the schemas it declares (a 400 naming the
 * field otherwise), and whose answer is typed by its response schema: the document, the validation
 * and the code cannot drift apart. Answers are not validated at run time (speed); the tests do that.
 */
export function defineRoute<
  P extends string,
  R extends z.ZodType,
  Q extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(definition: RouteDefinition<P, Q, B, R>): Route {
  const { query: querySchema, body: bodySchema, status = 200, handler } = definition;
  return {
    ...definition,
    status,
    async handler({ ctx, params, query, body }) {
      const answer = await handler({
        ctx,
        params: params as PathParams<P>,
        query: (querySchema ? parseInput(querySchema, query, "query") : undefined) as Parsed<Q>,
        body: (bodySchema ? parseInput(bodySchema, body) : undefined) as Parsed<B>,
      });
      return { status, body: answer };
    },
  };
}

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
