// graphql-sse at /graphql/stream: subscriptions (and queries) over Server-Sent Events, distinct
// connections mode (and, with WORKERS=1 only, single connection mode). Same schema and context as
// /graphql; the API key is optional, as the public checkout subscription needs none. Errors are
// masked as yoga masks them: a DomainError keeps its message and extensions.code, anything else
// becomes "Unexpected error.".
import cluster from "node:cluster";
import { type DocumentNode, GraphQLError, parse, validate } from "graphql";
import { createHandler } from "graphql-sse/lib/use/fetch";
import { DomainError } from "../errors.ts";
import type { GraphQLRateGate } from "../gate/rate-limit.graphql.ts";
import { authenticateApiKey, bearerToken } from "../modules/api-keys/api-keys.service.ts";
import { jsonResponse } from "../rest/transport.ts";
import type { GraphQLContext } from "./context.ts";
import { schema } from "./schema.ts";
import { subscribeSharingResults } from "./shared-subscribe.ts";

export const SSE_PATH = "/graphql/stream";

const SINGLE_CONNECTION_REFUSED =
  "The single connection mode (PUT) needs WORKERS=1; use the distinct connections mode (a GET or POST per operation)";

export function createSseServer(deps: GraphQLContext["deps"], rateGate: GraphQLRateGate) {
  function mask(error: GraphQLError): GraphQLError {
    const original = error.originalError;
    if (!original) return error;
    if (original instanceof DomainError) {
      return new GraphQLError(original.message, { nodes: error.nodes, path: error.path, extensions: { code: original.code } });
    }
    if (original instanceof GraphQLError) return original;
    deps.logger.error("graphql stream resolver failed", { error: original });
    return new GraphQLError("Unexpected error.", { nodes: error.nodes, path: error.path });
  }

  // Every checkout page sends the same operation text: parse and validate it once.
  const documents = new Map<string, DocumentNode>();
  const validated = new WeakSet<DocumentNode>();
  function validDocument(query: string): DocumentNode | null {
    let document = documents.get(query);
    if (document) return document;
    try {
      document = parse(query);
    } catch {
      return null;
    }
    if (validate(schema, document).length) return null;
    if (documents.size >= 500) documents.delete(documents.keys().next().value!);
    documents.set(query, document);
    validated.add(document);
    return document;
  }

  const contextFor = async (request: { headers: { get(name: string): string | null | undefined } }) => ({
    deps,
    scope: await authenticateApiKey(deps, bearerToken(request.headers.get("authorization") ?? null)),
  });

  // graphql-sse wants an index-signature record as its context type.
  const handler = createHandler<GraphQLContext & Record<PropertyKey, unknown>>({
    schema,
    subscribe: subscribeSharingResults,
    validate: (s, document, ...rest) => (validated.has(document) ? [] : validate(s, document, ...rest)),
    context: contextFor,
    // Known operations skip parsing; unknown or invalid ones return nothing, so graphql-sse parses
    // and reports their errors itself.
    onSubscribe: async (request, params) => {
      const document = typeof params.query === "string" ? validDocument(params.query) : null;
      if (!document) return;
      const contextValue = await contextFor(request);
      const refused = await rateGate.chargeOperation({ document, operationName: params.operationName, scope: contextValue.scope, request: request.raw });
      // graphql-sse sends a result (it needs `data` to tell one) as the operation's only event.
      if (refused) return { data: null, errors: [refused] };
      return { schema, document, operationName: params.operationName, variableValues: params.variables, contextValue };
    },
    onNext: (_ctx, _request, result) => (result.errors ? { ...result, errors: result.errors.map(mask) } : result),
  });

  return async function fetch(request: Request): Promise<Response> {
    // A PUT reserves a stream for graphql-sse's single connection mode, kept in this process; with
    // several workers the client's next request may reach another one and find nothing.
    if (request.method === "PUT" && cluster.isWorker) {
      return jsonResponse(405, { error: SINGLE_CONNECTION_REFUSED });
    }
    try {
      return await handler(request);
    } catch (error) {
      deps.logger.error("graphql stream failed", { error });
      return jsonResponse(500, { error: "Internal server error" });
    }
  };
}
