// buildApp(deps) -> { fetch, start, stop }: one Web-standard handler for every door of the service,
// and the background workers that belong to it. Only main.ts calls start().
import type { Deps } from "./context.ts";
import { createGraphQLServer } from "./graphql/yoga.ts";
import { customerRoutes } from "./modules/customers/customers.rest.ts";
import { paymentRoutes } from "./modules/payments/payments.rest.ts";
import { API_PREFIX, createRestApi } from "./rest/api.ts";
import { jsonResponse } from "./rest/errors.ts";
import type { Logger } from "./shared/logger.ts";

export type AppDeps = Deps & { logger: Logger };

export interface App {
  fetch(request: Request): Promise<Response>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function buildApp(deps: AppDeps): App {
  const rest = createRestApi(deps, [...paymentRoutes, ...customerRoutes]);
  const graphql = createGraphQLServer(deps);

  async function fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname;
    if (path === API_PREFIX || path.startsWith(`${API_PREFIX}/`)) return rest(request, url);
    if (path === "/graphql") return graphql.fetch(request);
    if (path === "/health") return jsonResponse(200, { ok: true });
    return jsonResponse(404, { error: "Not found" });
  }

  return {
    fetch,
    async start() {},
    async stop() {},
  };
}
