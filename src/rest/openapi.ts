// The OpenAPI 3.1 document of /api/v1, made from the route table the router serves (method, path,
// the zod schemas each route validates its input with and types its answer by), so a route cannot
// be served without being documented, nor documented otherwise than it behaves.
import { z } from "zod";
import {
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathItemObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponseObject,
  type ZodOpenApiResponsesObject,
  createDocument,
} from "zod-openapi";
import { MAX_IDEMPOTENCY_KEY_LENGTH } from "../modules/idempotency/idempotency.service.ts";
import { MAX_ID_LENGTH } from "../shared/validation.ts";
import { EVENT_BODIES, deliveryHeadersSchema } from "../webhooks/event-bodies.ts";
import type { ErrorStatus, Route } from "./router.ts";

/** The 400 of the routes that create something to be paid (decisions.md). */
export const NO_SETTLEMENT_WALLET = 'The environment has no settlement wallet: {"error": "Settlement wallet is not configured"}';

/** Where the document is served, under /api/v1: no key needed. */
export const OPENAPI_PATH = "/openapi.json";

const errorJsonSchema = z
  .object({ error: z.string().meta({ description: "what went wrong; a validation message names the field" }) })
  .meta({ id: "Error", description: "Every error answer: one field, `error`" });

// Sent with every answer while the caller's budget is on (RATE_LIMIT_* > 0).
const rateLimitHeaders = {
  "RateLimit-Limit": z.int().optional().meta({ description: "requests per second allowed", header: { id: "RateLimit-Limit" } }),
  "RateLimit-Remaining": z.int().optional().meta({ description: "requests left in this second", header: { id: "RateLimit-Remaining" } }),
  "RateLimit-Reset": z.int().optional().meta({ description: "seconds until the budget refills", header: { id: "RateLimit-Reset" } }),
};
const retryAfterHeader = z.int().min(1).meta({ description: "seconds to wait before trying again", header: { id: "Retry-After" } });
const replayedHeader = z.literal("true").optional().meta({
  description: "this is the stored answer of an earlier request with the same Idempotency-Key",
  header: { id: "Idempotent-Replayed" },
});
const idempotencyKeyHeader = z
  .string()
  .min(1)
  .max(MAX_IDEMPOTENCY_KEY_LENGTH)
  .optional()
  .meta({
    description:
      "Makes a retry safe: the first answer for a key is stored for 24 hours and replayed byte for byte; the same key with another request is 409",
    param: { id: "Idempotency-Key" },
  });

const json = (schema: z.ZodType) => ({ "application/json": { schema } });

const wwwAuthenticateHeader = z.literal("Bearer").meta({ description: "the scheme the API takes (RFC 6750)", header: { id: "WWW-Authenticate" } });

/** Statuses the HTTP server answers before any route runs (its request line or headers are too long). */
type ServerErrorStatus = 414 | 431;
type ErrorCode = ErrorStatus | ServerErrorStatus | 500;

/** What each error status means wherever it is answered; a route may add its own reasons. */
const ERROR_MEANINGS: Record<ErrorCode, string> = {
  400: "The request is not valid (the message names the field) or breaks a business rule",
  401: 'The API key is missing or not valid: {"error": "Unauthorized"}, with WWW-Authenticate: Bearer',
  404: 'No such object for this key\'s organization and environment: {"error": "Not found"}',
  409: "The Idempotency-Key was used with a different request, or its first request is still running",
  413: "The body is larger than 1 MiB",
  414: "The request line (method, path and query) is longer than the server reads (about 16 KiB with the headers)",
  415: "The body is not sent with Content-Type: application/json",
  429: 'Over the rate limit: {"error": "Too many requests"}; Retry-After says when to try again',
  431: "The headers are larger than the server reads (about 16 KiB with the request line)",
  500: 'An unexpected error: {"error": "Internal server error"}, nothing internal shown',
};

/** The headers an error status comes with: the rate budget's, and its own. */
function errorHeadersOf(status: ErrorCode) {
  if (status === 429) return { ...rateLimitHeaders, "Retry-After": retryAfterHeader };
  if (status === 401) return { ...rateLimitHeaders, "WWW-Authenticate": wwwAuthenticateHeader };
  // Answered by the HTTP server itself, before the rate limiter has seen the request.
  if (status === 414 || status === 431) return {};
  return rateLimitHeaders;
}

function errorResponse(status: ErrorCode, description: string): ZodOpenApiResponseObject {
  return { description, headers: z.object(errorHeadersOf(status)), content: json(errorJsonSchema) };
}

/** Each status's answer as a component ("Error429"): operations refer to it unless they add a reason. */
const sharedErrorResponses = Object.fromEntries(
  Object.entries(ERROR_MEANINGS).map(([status, meaning]) => [status, { ...errorResponse(Number(status) as ErrorCode, meaning), id: `Error${status}` }]),
) as Record<ErrorCode, ZodOpenApiResponseObject>;

/** The errors every route of this kind can answer: any operation, any POST, any operation on an id. */
function commonErrorsOf(route: Route): ErrorCode[] {
  const codes: ErrorCode[] = [400, 401];
  if (route.path.includes(":")) codes.push(404);
  if (route.method === "POST") codes.push(409, 413, 415);
  codes.push(414, 429, 431, 500);
  return codes;
}

function responsesOf(route: Route): ZodOpenApiResponsesObject {
  const responses: ZodOpenApiResponsesObject = {
    [route.status]: {
      description: route.status === 201 ? "Created" : "OK",
      headers: z.object(route.method === "POST" ? { ...rateLimitHeaders, "Idempotent-Replayed": replayedHeader } : rateLimitHeaders),
      content: json(route.response),
    },
  };
  const common = commonErrorsOf(route);
  const own: Partial<Record<ErrorCode, string>> = route.errors ?? {};
  const codes = [...new Set([...common, ...(Object.keys(own).map(Number) as ErrorCode[])])].sort((a, b) => a - b);
  for (const status of codes) {
    const reason = own[status];
    responses[`${status}`] =
      reason === undefined
        ? sharedErrorResponses[status]
        : errorResponse(status, common.includes(status) ? `${reason}; or: ${ERROR_MEANINGS[status]}` : reason);
  }
  return responses;
}

/** "/payments/:id" -> "/payments/{id}" */
const openApiPath = (path: string) => path.replace(/:(\w+)/g, "{$1}");
/** The first segment names the resource: "payment-links". */
const tagOf = (path: string) => path.split("/")[1]!;

function operationOf(route: Route): ZodOpenApiOperationObject {
  // An id longer than any the service makes names no object: 404, as an unknown one.
  const pathParams = [...route.path.matchAll(/:(\w+)/g)].map(([, name]) => [name!, z.string().max(MAX_ID_LENGTH).meta({ description: "the object's id" })]);
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [tagOf(route.path)],
    requestParams: {
      ...(pathParams.length > 0 && { path: z.object(Object.fromEntries(pathParams)) }),
      ...(route.query && { query: route.query }),
      ...(route.method === "POST" && { header: z.object({ "Idempotency-Key": idempotencyKeyHeader }) }),
    },
    ...(route.body && { requestBody: { required: !route.bodyless, content: json(route.body) } }),
    responses: responsesOf(route),
  };
}

/** The document itself is an operation too, open to anyone (the address's public rate budget). */
const documentOperation: ZodOpenApiOperationObject = {
  operationId: "getOpenApiDocument",
  summary: "This OpenAPI document",
  tags: ["openapi"],
  security: [],
  responses: {
    200: { description: "OK", headers: z.object(rateLimitHeaders), content: json(z.looseObject({ openapi: z.string() })) },
    414: sharedErrorResponses[414],
    429: sharedErrorResponses[429],
    431: sharedErrorResponses[431],
    500: sharedErrorResponses[500],
  },
};

/** What each tag's operations are about. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  payments: "Payment intents: what a payer pays, on the hosted checkout or straight on the ledger",
  customers: "Payer profiles, linked to payments, sessions and invoices",
  "checkout-sessions": "Hosted checkouts, each for one payment, with redirects after it",
  "payment-links": "Reusable links: each visit opens a new checkout session",
  invoices: "Invoices: drafts, finalized into a checkout, paid or voided",
  "webhook-endpoints": "Where events are sent, and their signing secrets",
  "webhook-deliveries": "The delivery log of events to endpoints, and retries",
  refunds: "Money sent back to a payer, from the merchant's own wallet",
  openapi: "This document",
  webhooks: "The events the service POSTs to subscribed endpoints, signed with the endpoint's secret (Service-Signature)",
};

const WEBHOOK_RESPONSES: ZodOpenApiResponsesObject = {
  "2XX": { description: "Accepted. Any other status, a redirect, or no answer within 10 seconds is a failure: retried after 1 min, 5 min, 30 min, 2 h and 24 h" },
};

/**
 * One webhook per event kind: the POST the service sends to a subscribed endpoint. Its body is a
 * component named after the kind, referred to by name: the service writes these bodies, so they are
 * rendered as outputs, like the answers that show the same objects (as a request body, zod-openapi
 * would render Payment, Invoice... a second time, as inputs, and rename the answers' to PaymentOutput).
 */
const webhooks = Object.fromEntries(
  EVENT_BODIES.map(({ kind, name }): [string, ZodOpenApiPathItemObject] => [
    kind,
    {
      post: {
        operationId: `${kind.replace(/\.(\w)/g, (_, letter: string) => letter.toUpperCase())}Webhook`,
        summary: `The ${kind} event`,
        tags: ["webhooks"],
        security: [],
        requestParams: { header: deliveryHeadersSchema(kind) },
        requestBody: { required: true, content: { "application/json": { schema: { $ref: `#/components/schemas/${name}` } } } },
        responses: WEBHOOK_RESPONSES,
      },
    },
  ]),
);

/**
 * Response components that only carry the event bodies (as outputs, see webhooks) into the
 * document's schemas; they are taken out once the document is made.
 */
const eventBodyCarriers = Object.fromEntries(EVENT_BODIES.map(({ name, body }) => [name, { description: name, content: json(body) }]));

/** The OpenAPI 3.1 document of `routes`, served from `${publicUrl}/api/v1`. */
export function openApiDocument(routes: Route[], publicUrl: string) {
  const paths: ZodOpenApiPathsObject = { [OPENAPI_PATH]: { get: documentOperation } };
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operationOf(route) };
  }
  const document = createDocument({
    openapi: "3.1.0",
    info: {
      title: "Stellar Pay API",
      version: "1.0.0",
      description:
        "Collect payments on the Stellar network: payments, customers, checkout sessions, payment links, invoices and webhooks. " +
        "Amounts are strings with up to 7 decimals, never numbers. Lists are newest first, paged with limit, starting_after and ending_before.",
    },
    // PUBLIC_URL: where this installation is reached. Public: anyone with a key may call it.
    servers: [{ url: `${publicUrl}/api/v1`, description: "this installation (PUBLIC_URL); sandbox or production is chosen by the API key", "x-internal": false }],
    security: [{ apiKey: [] }],
    tags: [...new Set([...routes.map((route) => tagOf(route.path)), "openapi", "webhooks"])].map((name) => ({
      name,
      ...(TAG_DESCRIPTIONS[name] && { description: TAG_DESCRIPTIONS[name] }),
    })),
    paths,
    webhooks,
    components: {
      responses: eventBodyCarriers,
      securitySchemes: {
        apiKey: {
          type: "http",
          scheme: "bearer",
          description:
            "Authorization: Bearer <API key>. Sandbox keys (pk_test_...) reach sandbox data on the Stellar test network; live keys (pk_live_...) production data.",
        },
      },
    },
  });
  for (const name of Object.keys(eventBodyCarriers)) delete document.components!.responses![name];
  return document;
}
