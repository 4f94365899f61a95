// /api/v1: authenticate, rate-limit, parse, route, and map errors, in that order.
import type { Deps, ServiceContext } from "../context.ts";
import { DomainError, notFound, tooManyRequests, unauthorized } from "../errors.ts";
import { authenticateApiKey, bearerToken } from "../modules/api-keys/api-keys.service.ts";
import type { Logger } from "../shared/logger.ts";
import { readJsonBody } from "./body.ts";
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
      const result = await match.route.handler({
        ctx,
        params: match.params,
        query: Object.fromEntries(url.searchParams),
        body,
      });
      return jsonResponse(result.status, result.body, rateHeaders);
    } catch (error) {
      const response = errorResponse(error, deps.logger);
      if (error instanceof DomainError) for (const [k, v] of Object.entries(rateHeaders)) response.headers.set(k, v);
      return response;
    }
  };
}
