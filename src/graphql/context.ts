import type { Deps, Scope, ServiceContext } from "../context.ts";
import { type DomainError, unauthorized } from "../errors.ts";
import { clientAddressOf } from "../gate/client-address.ts";
import type { Ledger } from "../ledger/ledger.ts";
import { authenticateApiKey, bearerToken } from "../modules/api-keys/api-keys.service.ts";
import type { LoginThrottle } from "../modules/users/reauthentication.ts";
import { ENVIRONMENT_HEADER, requestedEnvironment, sessionOfToken, sessionScope, sessionTokenOf } from "../modules/users/sessions.service.ts";
import type { Logger } from "../shared/logger.ts";

export interface GraphQLContext {
  /** `ledger` is given by the app (checkout transactions use it), `loginThrottle` counts failed logins */
  deps: Deps & { logger: Logger; ledger?: Ledger; loginThrottle: LoginThrottle };
  /** null without a valid API key or dashboard session: only the checkout's public fields (and login) answer then */
  scope: Scope | null;
  /** why a credential that was given is not used (a session's bad Service-Environment): what requireService answers */
  refusal: DomainError | null;
  /** the caller's network address (login throttling counts by it) */
  clientAddress: string;
  /** adds a Set-Cookie to the answer; null on a door that cannot set cookies (/graphql/stream) */
  setCookie: ((cookie: string) => void) | null;
}

/** The service context of an authenticated caller, or UNAUTHENTICATED (or the refusal of the credential given). */
export function requireService(ctx: GraphQLContext): ServiceContext {
  if (ctx.refusal) throw ctx.refusal;
  if (!ctx.scope) throw unauthorized();
  return { ...ctx.deps, scope: ctx.scope };
}

interface Caller {
  scope: Scope | null;
  refusal: DomainError | null;
}

// The caller of a request, looked up once: validation needs it (anonymous callers get no
// introspection) before yoga builds the context, and the context needs it again.
const callers = new WeakMap<Request, Promise<Caller>>();
const known = new WeakMap<Request, Scope | null>();

/**
 * Who calls: an API key (`Authorization: Bearer`), else a dashboard session (its cookie), whose
 * environment is the request's `Service-Environment` (sandbox by default). A key wins when both
 * come: it names its organization and environment itself.
 */
async function identify(deps: Deps, request: Request): Promise<Caller> {
  const key = bearerToken(request.headers.get("authorization"));
  const token = key === null ? sessionTokenOf(request.headers.get("cookie")) : null;
  if (token === null) return { scope: await authenticateApiKey(deps, key), refusal: null };
  const found = await sessionOfToken(deps, token);
  if (!found) return { scope: null, refusal: null };
  try {
    return { scope: sessionScope(found.session, found.user, requestedEnvironment(request.headers.get(ENVIRONMENT_HEADER)), found.mustSetUpTwoFactor), refusal: null };
  } catch (error) {
    return { scope: null, refusal: error as DomainError };
  }
}

/** The caller of the request (none, or a malformed, unknown, revoked or expired credential: a null scope). */
export function callerOf(deps: Deps, request: Request): Promise<Caller> {
  let caller = callers.get(request);
  if (!caller) {
    caller = identify(deps, request).then((found) => {
      known.set(request, found.scope);
      return found;
    });
    callers.set(request, caller);
  }
  return caller;
}

/** What callerOf found, once it has resolved; undefined before. */
export const knownCallerScope = (request: Request): Scope | null | undefined => known.get(request);

/** The context of a GraphQL request on either door. */
export async function contextOf(deps: GraphQLContext["deps"], request: Request, setCookie: GraphQLContext["setCookie"]): Promise<GraphQLContext> {
  const { scope, refusal } = await callerOf(deps, request);
  return { deps, scope, refusal, clientAddress: clientAddressOf(request), setCookie };
}
