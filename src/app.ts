// buildApp(deps) -> { fetch, listener, start, stop }: one handler for every door of the service, as a
// Web-standard fetch and as a node:http listener (which serves /api/v1 and payment link visits
// without the Web-standard adapter), and the background workers that belong to it. Only main.ts
// calls start().
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServerAdapter } from "@whatwg-node/server";
import type { AppDeps } from "./context.ts";
import { badRequest, notFound } from "./errors.ts";
import { SSE_PATH, createSseServer } from "./graphql/sse.ts";
import { createGraphQLServer } from "./graphql/yoga.ts";
import { type Ledger, createLedger } from "./ledger/ledger.ts";
import { stopLiveUpdates } from "./modules/checkout/checkout.live.ts";
import { createCheckoutPages } from "./modules/checkout/checkout.pages.ts";
import { checkoutSessionRoutes } from "./modules/checkout-sessions/checkout-sessions.rest.ts";
import { customerRoutes } from "./modules/customers/customers.rest.ts";
import { invoiceRoutes } from "./modules/invoices/invoices.rest.ts";
import { handlePaymentLinkVisit, paymentLinkIdOf } from "./modules/payment-links/payment-links.public.ts";
import { paymentLinkRoutes } from "./modules/payment-links/payment-links.rest.ts";
import { paymentRoutes } from "./modules/payments/payments.rest.ts";
import { refundRoutes } from "./modules/refunds/refunds.rest.ts";
import { webhookDeliveryRoutes } from "./modules/webhook-deliveries/webhook-deliveries.rest.ts";
import { webhookEndpointRoutes } from "./modules/webhook-endpoints/webhook-endpoints.rest.ts";
import { createRestApi, isApiPath } from "./rest/api.ts";
import { readWithinLimit } from "./rest/body.ts";
import { errorResponse } from "./rest/errors.ts";
import type { Route } from "./rest/router.ts";
import { apiRequestFromFetch, apiRequestFromNode, sendNode, toFetchResponse } from "./rest/transport.ts";
import { rememberRequestId, requestIdOf } from "./shared/request-id.ts";
import { addressOfNodeRequest, clientAddressOf, rememberClientAddress } from "./gate/client-address.ts";
import { createRateLimits } from "./gate/rate-limit.ts";
import { createGraphQLRateGate } from "./gate/rate-limit.graphql.ts";
import { WebhookDispatcher } from "./webhooks/dispatcher.ts";
import { MailWorker } from "./mail/mail-worker.ts";
import { type RetentionPurger, createRetentionPurger } from "./modules/retention/retention-purger.ts";
import { type SearchTermsBackfill, createSearchTermsBackfill } from "./modules/payments/payment-search-backfill.ts";
import { type FailingEndpointWatch, createFailingEndpointWatch } from "./modules/webhook-endpoints/endpoint-health.ts";
import { createMetrics } from "./monitoring/metrics.ts";
import { MONITORING_PATHS, createMonitoringDoor } from "./monitoring/monitoring.http.ts";
import { createReadiness } from "./monitoring/readiness.ts";
import { routeLabelOf } from "./monitoring/route-labels.ts";


/**
 * HSTS when the service is public over https: browsers then refuse plain http to this host (and
 * its subdomains) for a year, the value browsers' preload lists ask for. Not `preload`: that
 * commits the whole registrable domain, the operator's call. Over plain http it would be ignored.
 */
function transportSecurityHeaders(publicUrl: string): Record<string, string> {
  return publicUrl.startsWith("https:") ? { "strict-transport-security": "max-age=31536000; includeSubDomains" } : {};
}

export interface App {
  fetch(request: Request): Promise<Response>;
  /** the same doors for node:http; what serve() uses */
  listener(req: IncomingMessage, res: ServerResponse): void;
  /** `url`: where the server listens (the app reaches its own simulated network there) */
  start(options?: { url?: string }): Promise<void>;
  /** /ready answers 503 from now on (a load balancer stops sending new requests); the doors keep answering */
  drain(): void;
  stop(): Promise<void>;
  /** ledger sources, simulated networks, streamer and expiry sweeper */
  ledger: Ledger;
  /** the webhook worker; tests drive it with runOnce() */
  webhooks: WebhookDispatcher;
  /** the mail outbox's worker; tests drive it with runOnce() */
  mail: MailWorker;
  /** tells a webhook endpoint's people when it has failed for an hour; tests drive it with runOnce() */
  failingEndpoints: FailingEndpointWatch;
  /** deletes what is kept only for a while (idempotency records, old events and deliveries); tests drive it with runOnce() */
  purger: RetentionPurger;
  /** gives search terms to the payments made before they existed; tests drive it with runBatch() */
  searchBackfill: SearchTermsBackfill;
}

/** Every route of /api/v1. */
export const API_ROUTES: Route[] = [
  ...paymentRoutes,
  ...customerRoutes,
  ...checkoutSessionRoutes,
  ...paymentLinkRoutes,
  ...invoiceRoutes,
  ...webhookEndpointRoutes,
  ...webhookDeliveryRoutes,
  ...refundRoutes,
];

export function buildApp(deps: AppDeps): App {
  const rateLimits = createRateLimits(deps.config);
  const webhooks = new WebhookDispatcher(deps);
  const mail = new MailWorker(deps);
  const purger = createRetentionPurger(deps);
  const searchBackfill = createSearchTermsBackfill(deps);
  const failingEndpoints = createFailingEndpointWatch(deps);
  const ledger = createLedger(deps, () => webhooks.wake());
  // Refunds reach the ledger (accounts, sequence numbers, submission): the routes find it in their context.
  const restDeps = { ...deps, ledger };
  const rest = createRestApi(restDeps, API_ROUTES, rateLimits);
  const graphqlGate = createGraphQLRateGate(deps, rateLimits);
  const graphqlDeps = { ...deps, ledger, loginThrottle: rateLimits.logins };
  const graphql = createGraphQLServer(graphqlDeps, graphqlGate);
  const graphqlStream = createSseServer(graphqlDeps, graphqlGate);
  const checkoutPages = createCheckoutPages(deps);
  const readiness = createReadiness(deps, ledger);
  const metrics = createMetrics(deps, { ledger, openStreams: graphqlStream.openStreams });
  const monitoring = createMonitoringDoor(deps, { readiness, metrics });
  const isMonitoringPath = (path: string): path is (typeof MONITORING_PATHS)[number] => (MONITORING_PATHS as readonly string[]).includes(path);

  // The requests whose body the node:http door has read within the limit already (readBodyFirst).
  const bodyReadAtTheDoor = new WeakSet<Request>();

  /**
   * A GraphQL request with its body read within REST's limit (413 past it), as the node:http door
   * reads it (readBodyFirst): yoga's own limit is off, so each door applies this one.
   */
  async function bodyWithinLimit(request: Request): Promise<Request> {
    if (!request.body || bodyReadAtTheDoor.has(request)) return request;
    const body = await readWithinLimit(request.headers.get("content-length"), request.body as unknown as AsyncIterable<Uint8Array>);
    const forwarded = new Request(request.url, { method: request.method, headers: request.headers, body: new Uint8Array(body), signal: request.signal });
    rememberClientAddress(forwarded, clientAddressOf(request));
    rememberRequestId(forwarded, requestIdOf(request));
    return forwarded;
  }

  async function fetch(request: Request): Promise<Response> {
    // A Host header that makes no URL (`Host: [`) is the caller's mistake.
    if (!URL.canParse(request.url)) return toFetchResponse(errorResponse(badRequest("The request URL is not valid"), deps.logger));
    const url = new URL(request.url);
    const path = url.pathname;
    if (isApiPath(path)) return toFetchResponse(await rest(apiRequestFromFetch(request, url)));
    if (path === "/graphql") return graphql.fetch(await bodyWithinLimit(request));
    if (path === SSE_PATH) return graphqlStream.fetch(request);
    if (isMonitoringPath(path)) return monitoring(request, path);
    const simulated = ledger.handleSimulated(request, path);
    if (simulated) return simulated;
    const linkId = paymentLinkIdOf(path);
    if (linkId) {
      const visit = { method: request.method, linkId, clientAddress: clientAddressOf(request), requestId: requestIdOf(request) };
      return toFetchResponse(await handlePaymentLinkVisit(deps, rateLimits, visit));
    }
    const checkoutPage = await checkoutPages(request, url);
    if (checkoutPage) return checkoutPage;
    // A person who opens the service's address lands on the dashboard's sign-in, not on a JSON 404.
    if (path === "/" && (request.method === "GET" || request.method === "HEAD")) return new Response(null, { status: 302, headers: { location: "/dashboard/" } });
    return toFetchResponse(errorResponse(notFound(), deps.logger));
  }

  // A write may have committed an outbox event or message: the webhook and mail workers look now
  // rather than at their next poll. Writes: every method but GET and HEAD, and a payment link visit
  // (it opens a session).
  const wakeAfterWrite = (method = "GET", linkVisit: boolean) => {
    if ((method !== "GET" && method !== "HEAD") || linkVisit) {
      webhooks.wake();
      mail.wake();
    }
  };
  // Whatever escapes a door is answered as REST answers it: a 500 never shows internals (the
  // adapter's own fallback would send the stack trace).
  const fetchMasked = (request: Request) =>
    fetch(request).catch((error: unknown) => toFetchResponse(errorResponse(error, deps.logger, {}, requestIdOf(request))));
  // node:http hands the adapter its request as server context: the caller's address comes from
  // there, and the listener adds the id of the request's log line.
  const otherDoors = createServerAdapter<{ req: IncomingMessage; requestId?: string }>((request, server) => {
    rememberClientAddress(request, addressOfNodeRequest(server.req, deps.config.trustProxy));
    rememberRequestId(request, server.requestId);
    if ((server.req as { body?: Buffer }).body) bodyReadAtTheDoor.add(request);
    return fetchMasked(request);
  });
  const transportHeaders = transportSecurityHeaders(deps.config.publicUrl);

  /**
   * One info line per request when its answer is sent, on every door: the path without its query
   * (a query may carry anything), the status, the time taken and an id from the id generator (`req_`),
   * which the caller also gets as X-Request-Id to quote. The same figures go to /metrics under the
   * request's route template (`apiRoute()`: the /api/v1 route that answered, if any).
   */
  function logRequest(req: IncomingMessage, res: ServerResponse, path: string, apiRoute: () => string | undefined): string {
    const started = performance.now();
    const requestId = deps.ids.newId("req");
    res.setHeader("x-request-id", requestId);
    // "close", not "finish": a stream the caller hangs up on never finishes, and is logged too.
    res.once("close", () => {
      const seconds = (performance.now() - started) / 1000;
      metrics.observeRequest(req.method, routeLabelOf(path, apiRoute()), res.statusCode, seconds);
      const duration_ms = Math.round(seconds * 1_000_000) / 1000;
      deps.logger.info("request", { method: req.method, url: path, status: res.statusCode, duration_ms, request_id: requestId });
    });
    return requestId;
  }

  /**
   * A GraphQL request's body, read here within the limit (413 past it) and handed to the adapter
   * as `req.body`, which it then takes instead of reading the connection. yoga, reading it itself,
   * stopped at its limit and left the rest of the body on a kept-alive connection, where the
   * client's next request waited behind it.
   */
  async function readBodyFirst(req: IncomingMessage & { body?: Buffer }): Promise<void> {
    if (req.method !== "GET" && req.method !== "HEAD") req.body = await readWithinLimit(req.headers["content-length"], req);
  }

  // A GraphQL request pays its first rate-limit point here, before yoga or graphql-sse parse
  // anything: a caller over budget costs an authentication and a count, nothing more.
  const isGraphQLPath = (path: string) => path === "/graphql" || path === SSE_PATH;

  return {
    async fetch(request) {
      const path = URL.canParse(request.url) ? new URL(request.url).pathname : null;
      const refused =
        path !== null && isGraphQLPath(path) ? await graphqlGate.admit(request.headers.get("authorization"), clientAddressOf(request)) : null;
      const response = refused ? toFetchResponse(refused) : await fetchMasked(request);
      for (const [name, value] of Object.entries(transportHeaders)) response.headers.set(name, value);
      wakeAfterWrite(request.method, path !== null && paymentLinkIdOf(path) !== null);
      return response;
    },
    listener(req, res) {
      // Set before any door writes its head: every answer of every door carries them.
      for (const [name, value] of Object.entries(transportHeaders)) res.setHeader(name, value);
      const path = req.url?.split("?", 1)[0] ?? "";
      let apiRoute: string | undefined;
      const requestId = logRequest(req, res, path, () => apiRoute);
      const linkId = paymentLinkIdOf(path);
      if (!isApiPath(path) && !linkId) {
        const enter = () => {
          res.once("finish", () => wakeAfterWrite(req.method, false));
          void otherDoors(req, res, { requestId });
        };
        if (!isGraphQLPath(path)) return enter();
        void graphqlGate
          .admit(req.headers.authorization ?? null, addressOfNodeRequest(req, deps.config.trustProxy))
          .then(async (refused) => {
            if (refused) return sendNode(res, refused);
            await readBodyFirst(req);
            enter();
          })
          .catch((error: unknown) => sendNode(res, errorResponse(error, deps.logger, {}, requestId)));
        return;
      }
      const answer = linkId
        ? handlePaymentLinkVisit(deps, rateLimits, { method: req.method ?? "GET", linkId, clientAddress: addressOfNodeRequest(req, deps.config.trustProxy), requestId })
        : rest(apiRequestFromNode(req, deps.config.trustProxy, requestId));
      void answer
        .catch((error: unknown) => errorResponse(error, deps.logger, {}, requestId))
        .then((response) => {
          apiRoute = response.route;
          sendNode(res, response);
          wakeAfterWrite(req.method, linkId !== null);
        });
    },
    webhooks,
    mail,
    purger,
    searchBackfill,
    failingEndpoints,
    ledger,
    async start(options) {
      webhooks.start();
      mail.start();
      purger.start();
      searchBackfill.start();
      failingEndpoints.start();
      await ledger.start(options);
      readiness.started();
    },
    drain: () => readiness.stopping(),
    async stop() {
      readiness.stopping();
      await ledger.stop();
      await webhooks.stop();
      await mail.stop();
      await purger.stop();
      await searchBackfill.stop();
      await failingEndpoints.stop();
      await stopLiveUpdates(deps);
      await rateLimits.close();
    },
  };
}
