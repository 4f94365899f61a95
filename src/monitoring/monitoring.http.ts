// The operator's door: /health (liveness: the process answers), /ready (readiness for a load
// balancer: 200, or 503 with the reason) and /metrics (Prometheus). /health and /ready show nothing
// private and are open to all. /metrics is not for the internet: with METRICS_TOKEN set it takes
// that bearer token from any address; without it, it answers callers on this machine only, and a
// request that came through a proxy is not one of them, even when the proxy itself runs on loopback.
// Proxies say so in different headers (Forwarded, X-Forwarded-*, X-Real-IP, Via, a CDN's client
// address header): any of them refuses.
import { timingSafeEqual } from "node:crypto";
import ipaddr from "ipaddr.js";
import type { Config } from "../config.ts";
import { forbidden, unauthorized } from "../errors.ts";
import { clientAddressOf } from "../gate/client-address.ts";
import { errorResponse } from "../rest/errors.ts";
import { jsonResponse, toFetchResponse } from "../rest/transport.ts";
import type { Logger } from "../shared/logger.ts";
import type { Metrics } from "./metrics.ts";
import type { Readiness } from "./readiness.ts";

export const MONITORING_PATHS = ["/health", "/ready", "/metrics"] as const;

const isLoopback = (address: string) => ipaddr.isValid(address) && ipaddr.process(address).range() === "loopback";

const sameSecret = (given: string, expected: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/** Headers a proxy adds to say whom it forwards for (or that it did); X-Forwarded-* are matched by prefix. */
const PROXY_HEADERS = ["forwarded", "via", "x-real-ip", "x-client-ip", "true-client-ip", "cf-connecting-ip", "fastly-client-ip", "x-cluster-client-ip", "x-original-forwarded-for", "forwarded-for"];

function cameThroughProxy(request: Request): boolean {
  for (const [name] of request.headers) if (name.startsWith("x-forwarded-") || PROXY_HEADERS.includes(name)) return true;
  return false;
}

/** Why /metrics refuses this request, or null when it may read them. */
function metricsRefusal(request: Request, config: Pick<Config, "metricsToken">) {
  if (config.metricsToken) {
    const token = /^Bearer (.+)$/.exec(request.headers.get("authorization") ?? "")?.[1];
    return token && sameSecret(token, config.metricsToken) ? null : unauthorized();
  }
  return !cameThroughProxy(request) && isLoopback(clientAddressOf(request)) ? null : forbidden("metrics are served to this machine only; set METRICS_TOKEN to scrape from elsewhere");
}

export function createMonitoringDoor(deps: { config: Config; logger: Logger }, parts: { readiness: Readiness; metrics: Metrics }) {
  return async function answer(request: Request, path: (typeof MONITORING_PATHS)[number]): Promise<Response> {
    if (path === "/health") return jsonResponse(200, { ok: true });
    if (path === "/ready") {
      const state = await parts.readiness.check();
      return state.ready ? jsonResponse(200, { ready: true, networks: state.networks }) : jsonResponse(503, { error: state.reason });
    }
    const refused = metricsRefusal(request, deps.config);
    if (refused) return toFetchResponse(errorResponse(refused, deps.logger));
    const { contentType, text } = await parts.metrics.scrape();
    return new Response(text, { status: 200, headers: { "content-type": contentType } });
  };
}
