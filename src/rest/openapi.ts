// The OpenAPI 3.1 document of /api/v1, made from the route table the router serves (method, path,
// the zod schemas each route validates its input with and types its answer by), so a route cannot
// be served without being documented, nor documented otherwise than it behaves.
import { z } from "zod";
import {
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponseObject,
  type ZodOpenApiResponsesObject,
  createDocument,
} from "zod-openapi";
import { MAX_IDEMPOTENCY_KEY_LENGTH } from "../modules/idempotency/idempotency.service.ts";
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

type ErrorCode = ErrorStatus | 500;

/** What each error status means wherever it is answered; a route may add its own reasons. */
const ERROR_MEANINGS: Record<ErrorCode, string> = {
  400: "The request is not valid (the message names the field) or breaks a business rule",
  401: 'The API key is missing or not valid: {"error": "Unauthorized"}',
  404: 'No such object for this key\'s organization and environment: {"error": "Not found"}',
  409: "The Idempotency-Key was used with a different request, or its first request is still running",
  413: "The body is larger than 1 MiB",
  415: "The body is not sent with Content-Type: application/json",
  429: 'Over the rate limit: {"error": "Too many requests"}; Retry-After says when to try again',
  500: 'An unexpected error: {"error": "Internal server error"}, nothing internal shown',
};

function errorResponse(status: ErrorCode, description: string): ZodOpenApiResponseObject {
  const headers = status === 429 ? { ...rateLimitHeaders, "Retry-After": retryAfterHeader } : rateLimitHeaders;
  return { description, headers: z.object(headers), content: json(errorJsonSchema) };
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
  codes.push(429, 500);
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
  const pathParams = [...route.path.matchAll(/:(\w+)/g)].map(([, name]) => [name!, z.string().meta({ description: "the object's id" })]);
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
    429: sharedErrorResponses[429],
    500: sharedErrorResponses[500],
  },
};

/** The OpenAPI 3.1 document of `routes`, served from `${publicUrl}/api/v1`. */
export function openApiDocument(routes: Route[], publicUrl: string) {
  const paths: ZodOpenApiPathsObject = { [OPENAPI_PATH]: { get: documentOperation } };
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operationOf(route) };
  }
  return createDocument({
    openapi: "3.1.0",
    info: {
      title: "Stellar Pay API",
      version: "1.0.0",
      description:
        "Collect payments on the Stellar network: payments, customers, checkout sessions, payment links, invoices and webhooks. " +
        "Amounts are strings with up to 7 decimals, never numbers. Lists are newest first, paged with limit, starting_after and ending_before.",
    },
    servers: [{ url: `${publicUrl}/api/v1` }],
    security: [{ apiKey: [] }],
    tags: [...new Set([...routes.map((route) => tagOf(route.path)), "openapi"])].map((name) => ({ name })),
    paths,
    components: {
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
}
