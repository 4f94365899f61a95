// graphql-sse at /graphql/stream: subscriptions (and queries) over Server-Sent Events, distinct
// connections mode (and, with WORKERS=1 only, single connection mode). Same schema and context as
// /graphql; the API key is optional, as the public checkout subscription needs none. Errors in
// results are mapped as /graphql maps them (src/graphql/errors.ts); refusals over HTTP answer
// {"error": ...} with REST's status (src/rest/errors.ts).
//
// The same door rules as /graphql: CORS only for CORS_ORIGINS, the 1 MiB body limit, and the GraphQL bounds
// (src/gate/graphql-bounds.ts) checked in onSubscribe before anything executes. Open streams are
// capped per address and single connection reservations are capped and expire (sse-limits.ts).
//
// graphql-sse's handler itself, not yoga's graphql-sse plugin (the same handler with yoga's envelop
// in onSubscribe): the plugin answers an invalid operation 400 "Unable to detect operation AST" and
// one that does not parse 500 with a stack trace (README, "SSE server").
import cluster from "node:cluster";
import { type DocumentNode, GraphQLError } from "graphql";
import { TOKEN_HEADER_KEY, TOKEN_QUERY_KEY } from "graphql-sse";
import { createHandler } from "graphql-sse/lib/use/fetch";
import { type DomainError, badRequest, methodNotAllowed, notFound, tooManyRequests, unavailable } from "../errors.ts";
import { clientAddressOf, rememberClientAddress } from "../gate/client-address.ts";
import { corsHeadersFor } from "../gate/cors.ts";
import { type Audience, audienceOf, forAudience, parseWithinBounds, validateWithinBounds } from "../gate/graphql-bounds.ts";
import type { GraphQLRateGate } from "../gate/rate-limit.graphql.ts";
import { readLimited } from "../rest/body.ts";
import { errorResponse } from "../rest/errors.ts";
import { apiRequestFromFetch, toFetchResponse } from "../rest/transport.ts";
import { rememberRequestId, requestIdOf } from "../shared/request-id.ts";
import { csrfRefusal } from "../gate/csrf.ts";
import { type GraphQLContext, contextOf } from "./context.ts";
import { toGraphQLError } from "./errors.ts";
import { schema } from "./schema.ts";
import { subscribeSharingResults } from "./shared-subscribe.ts";
import { RESERVATION_LIMITS, createReservations, createStreamCounter } from "./sse-limits.ts";

export const SSE_PATH = "/graphql/stream";

const SINGLE_CONNECTION_REFUSED =
  "The single connection mode (PUT) needs WORKERS=1; use the distinct connections mode (a GET or POST per operation)";

const retryAfter = (seconds: number) => ({ "retry-after": String(seconds) });

export function createSseServer(deps: GraphQLContext["deps"], rateGate: GraphQLRateGate) {
  const refusal = (error: DomainError, headers?: Record<string, string>) => toFetchResponse(errorResponse(error, deps.logger, headers));

  // Every checkout page sends the same operation text: parse and judge it once per audience.
  const documents = new Map<string, DocumentNode | GraphQLError>();
  const judgements = new WeakMap<DocumentNode, Map<Audience, readonly GraphQLError[]>>();
  function parseOnce(query: string): DocumentNode | GraphQLError {
    let document = documents.get(query);
    if (document) return document;
    try {
      document = parseWithinBounds(query);
    } catch (error) {
      document = error instanceof GraphQLError ? error : new GraphQLError("The query could not be parsed");
    }
    if (documents.size >= 500) documents.delete(documents.keys().next().value!);
    documents.set(query, document);
    return document;
  }
  function errorsFor(document: DocumentNode, audience: Audience): readonly GraphQLError[] {
    let byAudience = judgements.get(document);
    if (!byAudience) judgements.set(document, (byAudience = new Map()));
    let errors = byAudience.get(audience);
    if (!errors) byAudience.set(audience, (errors = validateWithinBounds(schema, document, audience)));
    return errors;
  }

  // graphql-sse asks for the context of a request more than once: authenticate it once.
  const contexts = new WeakMap<object, Promise<GraphQLContext & Record<PropertyKey, unknown>>>();
  const contextFor = (request: { raw: unknown }) => {
    let context = contexts.get(request);
    if (!context) {
      // A stream cannot set a cookie: login answers over /graphql.
      context = contextOf(deps, request.raw as Request, null) as Promise<GraphQLContext & Record<PropertyKey, unknown>>;
      contexts.set(request, context);
    }
    return context;
  };

  const streams = createStreamCounter(deps.config.sseStreamsPerAddress);
  // The token of a reservation made by this request (a PUT), for graphql-sse's authenticate.
  const reservedBy = new WeakMap<Request, string>();
  const reservations = createReservations(deps.clock, async (token) => {
    // graphql-sse drops a reserved stream once a stream attached to it ends: attach, then end it.
    const response = await handler(new Request(`http://localhost${SSE_PATH}`, { headers: { accept: "text/event-stream", [TOKEN_HEADER_KEY]: token } }));
    await response.body?.cancel();
  });

  const handler = createHandler<GraphQLContext & Record<PropertyKey, unknown>>({
    schema,
    subscribe: subscribeSharingResults,
    // onSubscribe has validated every operation it hands over (bounds and audience included).
    validate: () => [],
    authenticate: (request) => reservedBy.get(request.raw as Request) ?? tokenOf(request.raw as Request) ?? undefined,
    context: contextFor,
    onSubscribe: async (request, params) => {
      // graphql-sse takes a result only with a `data` key; undefined leaves it off the wire, as
      // graphql-sse's own validation errors are sent.
      const refused = (errors: readonly GraphQLError[]) => ({ data: undefined, errors });
      if (typeof params.query !== "string") return refused([new GraphQLError("query must be a string")]);
      const document = parseOnce(params.query);
      if (document instanceof GraphQLError) return refused([document]);
      const contextValue = await contextFor(request);
      const errors = errorsFor(document, audienceOf(contextValue.scope, deps.config.production));
      if (errors.length) return refused(errors);
      const limited = await rateGate.chargeOperation({ document, operationName: params.operationName, scope: contextValue.scope, request: request.raw });
      if (limited) return refused([limited]);
      return { schema, document, operationName: params.operationName, variableValues: params.variables, contextValue };
    },
    onNext: (ctx, request, result) => {
      if (!result.errors) return result;
      const errors = result.errors.map((error) => toGraphQLError(error, deps.logger, requestIdOf(request.raw as Request)));
      return { ...result, errors: forAudience(errors, audienceOf(ctx.scope, deps.config.production)) };
    },
  });

  /** The stream's body, giving its place back when it ends (closed by either side). */
  function countedStream(response: Response, address: string): Response {
    const reader = response.body!.getReader();
    let ended = false;
    const end = () => {
      if (!ended) streams.close(address);
      ended = true;
    };
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            end();
            controller.close();
          } else controller.enqueue(value);
        } catch (error) {
          end();
          controller.error(error);
        }
      },
      async cancel(reason) {
        end();
        await reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  }

  async function serve(request: Request, address: string): Promise<Response> {
    const eventStream = request.headers.get("accept") === "text/event-stream";
    const token = tokenOf(request);
    if (request.method === "PUT") {
      // A PUT reserves a stream for graphql-sse's single connection mode, kept in this process; with
      // several workers the client's next request may reach another one and find nothing. The token
      // is always the server's: one the client sends along is ignored.
      if (cluster.isWorker) return refusal(methodNotAllowed(SINGLE_CONNECTION_REFUSED));
      const reserved = reservations.reserve(address);
      if ("refused" in reserved) {
        const seconds = Math.ceil(RESERVATION_LIMITS.ttlMs / 1000);
        return reserved.refused === "address"
          ? refusal(tooManyRequests("Too many stream reservations from this address"), retryAfter(seconds))
          : refusal(unavailable("Too many stream reservations; try again later"), retryAfter(seconds));
      }
      reservedBy.set(request, reserved.token);
    }
    if (eventStream && token && !reservations.attach(token)) return refusal(notFound("Stream not found"));
    if (!eventStream) return handler(request);
    if (!streams.open(address)) return refusal(tooManyRequests("Too many open streams from this address"), retryAfter(1));
    let response: Response;
    try {
      response = await handler(request);
    } catch (error) {
      streams.close(address);
      throw error;
    }
    if (!response.body || !response.headers.get("content-type")?.startsWith("text/event-stream")) {
      streams.close(address);
      return response;
    }
    return countedStream(response, address);
  }

  const CORS_METHODS = ["GET", "POST", "PUT", "DELETE"];
  return {
    async fetch(request: Request): Promise<Response> {
      const cors = corsHeadersFor(request, deps.config.corsOrigins, CORS_METHODS);
      if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: { ...cors, "content-length": "0" } });
      const response = await answer(request);
      for (const [name, value] of Object.entries(cors)) response.headers.set(name, value);
      return response;
    },
    /** event streams open in this process */
    openStreams: streams.total,
  };

  async function answer(request: Request): Promise<Response> {
    const address = clientAddressOf(request);
    const forged = csrfRefusal(request);
    if (forged) return refusal(forged);
    try {
      // graphql-sse reads the whole body as text: read it here instead, within REST's limit.
      let forwarded = request;
      if (request.body) {
        const body = await readLimited(apiRequestFromFetch(request, new URL(request.url)));
        // graphql-sse would answer the parser's message, which quotes the body.
        if (body && !isJson(body)) return refusal(badRequest("Request body is not valid JSON"));
        forwarded = new Request(request.url, { method: request.method, headers: request.headers, body, signal: request.signal });
        rememberClientAddress(forwarded, address);
        rememberRequestId(forwarded, requestIdOf(request));
      }
      return await serve(forwarded, address);
    } catch (error) {
      return toFetchResponse(errorResponse(error, deps.logger, {}, requestIdOf(request)));
    }
  }
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** graphql-sse's stream token, from its header or query parameter. */
function tokenOf(request: Request): string | null {
  return request.headers.get(TOKEN_HEADER_KEY) || new URL(request.url).searchParams.get(TOKEN_QUERY_KEY) || null;
}
