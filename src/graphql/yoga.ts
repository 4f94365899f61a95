// graphql-yoga at /graphql. Expected errors (DomainError) keep their message and carry
// extensions.code; anything else is masked. The GraphQL bounds (src/gate/graphql-bounds.ts) refuse
// an operation before it executes; the body limit is REST's; browsers of other origins may call only
// from CORS_ORIGINS (the checkout page and the dashboard are same-origin). A browser's GET (Accept:
// text/html) gets GraphiQL (graphiql.ts), served from the installed package.
import { GraphQLError } from "graphql";
import { type Plugin, createYoga, maskError } from "graphql-yoga";
import { DomainError } from "../errors.ts";
import { corsOptionsFor } from "../gate/cors.ts";
import { audienceOf, graphqlBoundsPlugins } from "../gate/graphql-bounds.ts";
import { type GraphQLRateGate, useRateLimits } from "../gate/rate-limit.graphql.ts";
import { MAX_BODY_BYTES } from "../rest/body.ts";
import { type GraphQLContext, callerScope, knownCallerScope } from "./context.ts";
import { GRAPHIQL_OPTIONS, renderGraphiQLPage } from "./graphiql.ts";
import { schema } from "./schema.ts";

export function createGraphQLServer(deps: GraphQLContext["deps"], rateGate: GraphQLRateGate) {
  const { production, corsOrigins } = deps.config;
  // Who is calling must be known when the operation is validated, before yoga builds the context.
  const identifyCaller: Plugin = { onParams: async ({ request }) => void (await callerScope(deps, request)) };
  return createYoga<Record<string, never>, GraphQLContext>({
    schema,
    graphqlEndpoint: "/graphql",
    landingPage: false,
    graphiql: GRAPHIQL_OPTIONS,
    renderGraphiQL: renderGraphiQLPage,
    logging: false,
    maxRequestBodySize: MAX_BODY_BYTES,
    cors: (request) => corsOptionsFor(request, corsOrigins, ["GET", "POST"]),
    plugins: [identifyCaller, ...graphqlBoundsPlugins((request) => audienceOf(knownCallerScope(request), production)), useRateLimits(rateGate)],
    context: async ({ request }) => ({ deps, scope: await callerScope(deps, request) }),
    maskedErrors: {
      maskError(error, message, isDev) {
        const original = error instanceof GraphQLError ? error.originalError : error;
        if (original instanceof DomainError) {
          return new GraphQLError(original.message, {
            nodes: error instanceof GraphQLError ? error.nodes : undefined,
            path: error instanceof GraphQLError ? error.path : undefined,
            extensions: { code: original.code },
          });
        }
        if (!(original instanceof GraphQLError) && original) deps.logger.error("graphql resolver failed", { error: original });
        return maskError(error, message, isDev);
      },
    },
  });
}
