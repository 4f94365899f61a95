// /api/v1: authenticate, rate-limit, parse, route (once per Idempotency-Key for POSTs), and map errors, in that order.
// Its OpenAPI document (GET /api/v1/openapi.json) is public.
// A request without a valid key spends its address's public budget before it is refused, so
// guessing keys is limited like any other anonymous traffic.
import { type Deps, type ServiceContext, callerIdOf } from "../context.ts";
import { DomainError, forbidden, methodNotAllowed, notFound, tooManyRequests, unauthorized } from "../errors.ts";
import type { RateLimits } from "../gate/rate-limit.ts";
import { authenticateApiKey, bearerToken } from "../modules/api-keys/api-keys.service.ts";
import type { Logger } from "../shared/logger.ts";
import { refuseUnstorableInput } from "../shared/validation.ts";
import { secretBoxOf } from "../webhooks/secret-box.ts";
import { readJsonBody } from "./body.ts";
import { type StoredResponse, checkIdempotencyKey, requestFingerprint, runIdempotently } from "../modules/idempotency/idempotency.service.ts";
import { errorResponse } from "./errors.ts";
import { OPENAPI_PATH, openApiDocument } from "./openapi.ts";
import { keyAllows, keyRefusal } from "../modules/users/roles.ts";
import { type Route, Router, permissionOf } from "./router.ts";
import type { ApiRequest, ApiResponse } from "./transport.ts";

const API_PREFIX = "/api/v1";

export const isApiPath = (path: string) => path === API_PREFIX || path.startsWith(`${API_PREFIX}/`);

export function createRestApi(deps: Deps & { logger: Logger }, routes: Route[], rateLimits: RateLimits) {
  const router = new Router(routes);
  // Made on first request, not at start: most processes never serve it.
  let openApiJson: string | undefined;

  return async function handleApiRequest(request: ApiRequest): Promise<ApiResponse> {
    let rateHeaders: Record<string, string> = {};
    let route: string | undefined;
    try {
      const path = request.path.slice(API_PREFIX.length) || "/";
      if (request.method === "GET" && path === OPENAPI_PATH) {
        // Public and free of secrets: no key, the address's budget, readable from any origin.
        const decision = await rateLimits.chargeAddress(request.clientAddress);
        rateHeaders = decision.headers;
        if (!decision.allowed) throw tooManyRequests();
        openApiJson ??= JSON.stringify(openApiDocument(routes, deps.config.publicUrl));
        return { status: 200, headers: { ...rateHeaders, "access-control-allow-origin": "*" }, body: openApiJson, route: `${API_PREFIX}${OPENAPI_PATH}` };
      }
      const scope = await authenticateApiKey(deps, bearerToken(request.header("authorization")));
      const decision = scope ? await rateLimits.chargeKey(scope) : await rateLimits.chargeAddress(request.clientAddress);
      rateHeaders = decision.headers;
      if (!decision.allowed) throw tooManyRequests();
      if (!scope) throw unauthorized();

      const match = router.match(request.method, path);
      if (!match) throw notFound();
      if ("route" in match) route = `${API_PREFIX}${match.route.path}`;
      if ("allowed" in match) {
        // The path is not echoed: it may be long.
        const refused = methodNotAllowed(`${request.method} is not allowed on this path`);
        return errorResponse(refused, deps.logger, { allow: match.allowed.join(", "), ...rateHeaders });
      }
      // The key's role, enforced as for a dashboard session of that role (a developer key reads, and manages webhooks).
      const permission = permissionOf(match.route);
      const principal = scope.principal;
      if (principal.kind === "key" && !keyAllows(principal.role, permission)) {
        throw forbidden(keyRefusal(principal.role, permission, `${match.route.method} ${API_PREFIX}${match.route.path}`));
      }
      const query = Object.fromEntries(request.query);
      refuseUnstorableInput(query, "query");
      const body = match.route.method === "POST" ? (await readJsonBody(request, !!match.route.bodyless)).body : {};
      const ctx: ServiceContext = { ...deps, scope };
      const params = match.params;
      const respond = async (): Promise<StoredResponse> => {
        const result = await match.route.handler({ ctx, params, query, body });
        return { status: result.status, body: JSON.stringify(result.body) };
      };

      const idempotencyKey = request.header("idempotency-key");
      if (match.route.method !== "POST" || idempotencyKey === null) return { ...(await respond()), headers: rateHeaders, route };
      const { response, replayed } = await runIdempotently(
        deps,
        {
          apiKeyId: callerIdOf(scope),
          key: checkIdempotencyKey(idempotencyKey),
          requestHash: requestFingerprint(request.method, request.path, JSON.stringify(body)),
          ...(match.route.revealsSecret && { sealAnswer: secretBoxOf(deps.config) }),
        },
        // 4xx answers are stored like successes (as Stripe does); unexpected errors propagate.
        () => respond().catch((error: unknown) => {
          if (!(error instanceof DomainError)) throw error;
          const { status, body } = errorResponse(error, deps.logger);
          return { status, body };
        }),
      );
      // The stored JSON text is sent as it is, so a replay is the same bytes as the original.
      return { ...response, headers: { ...rateHeaders, ...(replayed && { "Idempotent-Replayed": "true" }) }, route };
    } catch (error) {
      // A 401 names the scheme the API takes (RFC 9110), as the document says.
      const headers = error instanceof DomainError && error.code === "UNAUTHENTICATED" ? { ...rateHeaders, "www-authenticate": "Bearer" } : rateHeaders;
      return { ...errorResponse(error, deps.logger, headers, request.requestId), route };
    }
  };
}
