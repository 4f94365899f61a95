// graphql-yoga at /graphql. Every result's errors pass through src/graphql/errors.ts (expected ones
// keep their message and carry extensions.code; anything else is logged and masked). The GraphQL
// bounds (src/gate/graphql-bounds.ts) refuse an operation before it executes; the body limit is
// REST's, applied by the door before yoga sees the request (src/app.ts), so yoga does not count it
// again; browsers of other origins may call only from CORS_ORIGINS (the checkout page and the
// dashboard are same-origin). A browser's GET (Accept: text/html) gets GraphiQL (graphiql.ts),
// served from the installed package. Subscriptions are refused here: they are served at
// /graphql/stream, where open streams are counted and capped per address (sse.ts), so yoga's own
// event stream is never a second, uncounted door to them.
import { type Plugin, createYoga, isAsyncIterable, mapAsyncIterator } from "graphql-yoga";
import { corsOptionsFor } from "../gate/cors.ts";
import { audienceOf, graphqlBoundsPlugins } from "../gate/graphql-bounds.ts";
import { type GraphQLRateGate, useRateLimits } from "../gate/rate-limit.graphql.ts";
import type { Logger } from "../shared/logger.ts";
import { requestIdOf } from "../shared/request-id.ts";
import { useCsrfPrevention } from "../gate/csrf.ts";
import { badRequest } from "../errors.ts";
import { type GraphQLContext, callerOf, contextOf, knownCallerScope } from "./context.ts";
import { graphqlErrorOf, withGraphQLErrors } from "./errors.ts";
import { GRAPHIQL_OPTIONS, renderGraphiQLPage, useGraphiQLPageHeaders } from "./graphiql.ts";
import { SSE_PATH } from "./sse.ts";
import { schema } from "./schema.ts";

export function createGraphQLServer(deps: GraphQLContext["deps"], rateGate: GraphQLRateGate) {
  const { production, corsOrigins } = deps.config;
  // Who is calling must be known when the operation is validated, before yoga builds the context.
  const identifyCaller: Plugin = { onParams: async ({ request }) => void (await callerOf(deps, request)) };
  return createYoga<Record<string, never>, GraphQLContext>({
    schema,
    graphqlEndpoint: "/graphql",
    landingPage: false,
    graphiql: GRAPHIQL_OPTIONS,
    renderGraphiQL: renderGraphiQLPage,
    logging: false,
    // The door has read the body within REST's limit already (src/app.ts, readBodyFirst and
    // bodyWithinLimit): yoga's own limit piped that read body through a second, counting stream,
    // with its stream pipeline and AbortController, ~12 % of a payment(id) query's CPU.
    maxRequestBodySize: false,
    cors: (request) => corsOptionsFor(request, corsOrigins, ["GET", "POST"]),
    plugins: [
      useCsrfPrevention(),
      useGraphiQLPageHeaders(),
      identifyCaller,
      ...graphqlBoundsPlugins((request) => audienceOf(knownCallerScope(request), production)),
      useRateLimits(rateGate),
      useSubscriptionsAtStream(),
      useErrorMapping(deps.logger),
      useSetCookies(),
    ],
    context: ({ request }) => contextOf(deps, request, (cookie) => cookiesToSet(request).push(cookie)),
    // yoga's masking knows no request: useErrorMapping masks every result instead, request id at hand.
    maskedErrors: false,
  });
}

const SUBSCRIPTIONS_ELSEWHERE = `Subscriptions are served at ${SSE_PATH} (the graphql-sse protocol); /graphql answers queries and mutations`;

/** A subscription is answered with one error, before it subscribes: no stream stays open on /graphql. */
function useSubscriptionsAtStream(): Plugin {
  return {
    onSubscribe: ({ setResultAndStopExecution }) => setResultAndStopExecution({ errors: [graphqlErrorOf(badRequest(SUBSCRIPTIONS_ELSEWHERE))] }),
  };
}

// The Set-Cookie headers a request's resolvers asked for (login, logout), added to its answer.
const cookies = new WeakMap<Request, string[]>();
function cookiesToSet(request: Request): string[] {
  let list = cookies.get(request);
  if (!list) cookies.set(request, (list = []));
  return list;
}
function useSetCookies(): Plugin {
  return {
    onResponse({ request, response }) {
      for (const cookie of cookies.get(request) ?? []) response.headers.append("set-cookie", cookie);
    },
  };
}

/** Every result's errors (and every result of a stream) as the caller may see them. */
function useErrorMapping(logger: Logger): Plugin {
  return {
    onResultProcess({ request, result, setResult }) {
      const requestId = requestIdOf(request);
      if (isAsyncIterable(result)) setResult(mapAsyncIterator(result, (each) => withGraphQLErrors(each, logger, requestId)));
      else if (Array.isArray(result)) setResult(result.map((each) => withGraphQLErrors(each, logger, requestId)));
      else setResult(withGraphQLErrors(result, logger, requestId));
    },
  };
}
