// The one place where errors become GraphQL errors, for /graphql (yoga) and /graphql/stream
// (graphql-sse), subscriptions included: a DomainError keeps its message and its code is
// extensions.code; GraphQL's own errors (syntax, validation, bounds, rate limits) pass as they are;
// anything else is logged once, with the request's id, and becomes INTERNAL "Internal server error".
import { type ExecutionResult, GraphQLError } from "graphql";
import { DomainError, INTERNAL_ERROR_MESSAGE, logUnexpectedError } from "../errors.ts";
import type { Logger } from "../shared/logger.ts";

/** extensions.code of an error no caller should see the inside of */
const INTERNAL_CODE = "INTERNAL";

/** A DomainError as GraphQL answers it; `at`: the error graphql-js located it with (path, nodes). */
export function graphqlErrorOf(error: DomainError, at?: GraphQLError, extensions: Record<string, unknown> = {}): GraphQLError {
  return new GraphQLError(error.message, { nodes: at?.nodes, path: at?.path, extensions: { code: error.code, ...extensions } });
}

/** `error` as the caller may see it. */
export function toGraphQLError(error: unknown, logger: Logger, requestId: string | undefined): GraphQLError {
  const located = error instanceof GraphQLError ? error : undefined;
  let original = located ? located.originalError : error;
  while (original instanceof GraphQLError && original.originalError) original = original.originalError;
  if (original instanceof DomainError) return graphqlErrorOf(original, located);
  // yoga marks what was thrown as something other than an Error (a string) `unexpected`.
  if (located && (original === undefined || original instanceof GraphQLError) && !located.extensions.unexpected) return located;
  logUnexpectedError(logger, original ?? located, requestId);
  // The original stays on the masked error: GraphQLError's JSON never shows it, and yoga then
  // counts the error as unexpected (a request that failed before executing is answered 500).
  return new GraphQLError(INTERNAL_ERROR_MESSAGE, {
    nodes: located?.nodes,
    path: located?.path,
    originalError: original instanceof Error ? original : undefined,
    extensions: { code: INTERNAL_CODE },
  });
}

/** `result` with its errors as the caller may see them. */
export function withGraphQLErrors<R extends ExecutionResult>(result: R, logger: Logger, requestId: string | undefined): R {
  return result.errors?.length ? { ...result, errors: result.errors.map((error) => toGraphQLError(error, logger, requestId)) } : result;
}
