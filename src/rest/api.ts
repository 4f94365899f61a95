// /api/v1: authenticate, rate-limit, parse, route (once per Idempotency-Key for POSTs), and map errors, in that order.
import type { Deps, ServiceContext } from "../context.ts";
import { DomainError, notFound, tooManyRequests, unauthorized } from "../errors.ts";
import { authenticateApiKey, bearerToken } from "../modules/api-keys/api-keys.service.ts";
import type { Logger } from "../shared/logger.ts";
import { readJsonBody } from "./body.ts";
import { type StoredResponse, checkIdempotencyKey, requestFingerprint, runIdempotently } from "./idempotency.ts";
import { errorResponse, jsonResponse } from "./errors.ts";
import { RateLimiter } from "./rate-limit.ts";
import { type Route, Router } from "./router.ts";

export const API_PREFIX = "/api/v1";

export function createRestApi(deps: Deps & { logger: Logger }, routes: Route[]) {
  const router = new Router(routes);
  const limiter = new RateLimiter(deps.clock);

  return async function handleApiRequest(request: Request, url: URL): Promise<Response> {
    let rateHeaders: Record<string, string> = {};
    try {
      const scope = await authenticateApiKey(deps, bearerToken(request.headers.get("authorization")));
      if (!scope) throw unauthorized();

      const limit = scope.environment === "production" ? deps.config.rateLimits.live : deps.config.rateLimits.sandbox;
      const decision = limiter.take(scope.apiKeyId, limit);
      rateHeaders = decision.headers;
      if (!decision.allowed) throw tooManyRequests();

      const path = url.pathname.slice(API_PREFIX.length) || "/";
      const match = router.match(request.method, path);
      if (!match) throw notFound();
      if ("allowed" in match) {
        return jsonResponse(405, { error: `${request.method} is not allowed on ${url.pathname}` }, {
          allow: match.allowed.join(", "),
          ...rateHeaders,
        });
      }
      const body = match.route.method === "POST" ? (await readJsonBody(request, !!match.route.bodyless)).body : {};
      const ctx: ServiceContext = { ...deps, scope };
      const route = match.route;
      const params = match.params;
      const respond = async (): Promise<StoredResponse> => {
        const result = await route.handler({ ctx, params, query: Object.fromEntries(url.searchParams), body });
        return { status: result.status, body: JSON.stringify(result.body) };
      };

      const idempotencyKey = request.headers.get("idempotency-key");
      if (route.method !== "POST" || idempotencyKey === null) {
        const response = await respond();
        return rawJsonResponse(response, rateHeaders);
      }
      const { response, replayed } = await runIdempotently(
        deps,
        {
          apiKeyId: scope.apiKeyId,
          key: checkIdempotencyKey(idempotencyKey),
          requestHash: requestFingerprint(request.method, url.pathname, JSON.stringify(body)),
        },
        // 4xx answers are stored like successes (as Stripe does); unexpected errors propagate.
        () => respond().catch((error: unknown) => {
          if (error instanceof DomainError) return { status: error.httpStatus, body: JSON.stringify({ error: error.message }) };
          throw error;
        }),
      );
      return rawJsonResponse(response, { ...rateHeaders, ...(replayed && { "Idempotent-Replayed": "true" }) });
    } catch (error) {
      const response = errorResponse(error, deps.logger);
      if (error instanceof DomainError) for (const [k, v] of Object.entries(rateHeaders)) response.headers.set(k, v);
      return response;
    }
  };
}

/** A response whose JSON text is already made, so a replay is the same bytes as the original. */
function rawJsonResponse(response: StoredResponse, headers: Record<string, string>): Response {
  return new Response(response.body, {
    status: response.status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}
