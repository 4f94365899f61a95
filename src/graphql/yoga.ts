// graphql-yoga at /graphql. Expected errors (DomainError) keep their message and carry
// extensions.code; anything else is masked.
import { GraphQLError } from "graphql";
import { createYoga, maskError } from "graphql-yoga";
import { DomainError } from "../errors.ts";
import { type GraphQLRateGate, useRateLimits } from "../gate/rate-limit.graphql.ts";
import { authenticateApiKey, bearerToken } from "../modules/api-keys/api-keys.service.ts";
import type { GraphQLContext } from "./context.ts";
import { schema } from "./schema.ts";

export function createGraphQLServer(deps: GraphQLContext["deps"], rateGate: GraphQLRateGate) {
  return createYoga<Record<string, never>, GraphQLContext>({
    schema,
    plugins: [useRateLimits(rateGate)],
    graphqlEndpoint: "/graphql",
    landingPage: false,
    logging: false,
    context: async ({ request }) => ({
      deps,
      scope: await authenticateApiKey(deps, bearerToken(request.headers.get("authorization"))),
    }),
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
