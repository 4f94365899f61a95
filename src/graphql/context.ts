import type { Deps, Scope, ServiceContext } from "../context.ts";
import { unauthorized } from "../errors.ts";
import type { Ledger } from "../ledger/ledger.ts";
import { authenticateApiKey, bearerToken } from "../modules/api-keys/api-keys.service.ts";
import type { Logger } from "../shared/logger.ts";

export interface GraphQLContext {
  /** `ledger` is given by the app (checkout transactions use it) */
  deps: Deps & { logger: Logger; ledger?: Ledger };
  /** null without a valid API key: only the checkout's public fields answer then */
  scope: Scope | null;
}

/** The service context of an authenticated caller, or UNAUTHENTICATED. */
export function requireService(ctx: GraphQLContext): ServiceContext {
  if (!ctx.scope) throw unauthorized();
  return { ...ctx.deps, scope: ctx.scope };
}

// The caller of a request, looked up once: validation needs it (anonymous callers get no
// introspection) before yoga builds the context, and the context needs it again.
const callers = new WeakMap<Request, Promise<Scope | null>>();
const known = new WeakMap<Request, Scope | null>();

/** The scope of the request's API key, or null (none, malformed, unknown or revoked). */
export function callerScope(deps: Deps, request: Request): Promise<Scope | null> {
  let scope = callers.get(request);
  if (!scope) {
    scope = authenticateApiKey(deps, bearerToken(request.headers.get("authorization"))).then((found) => {
      known.set(request, found);
      return found;
    });
    callers.set(request, scope);
  }
  return scope;
}

/** What callerScope found, once it has resolved; undefined before. */
export const knownCallerScope = (request: Request): Scope | null | undefined => known.get(request);
