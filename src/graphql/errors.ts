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
  if (located && (original === undefined || original instanceof GraphQLError) && !located.extensions.unexpected) return withShortMessage(located);
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

/** The longest message an answer carries: graphql-js quotes a variable's whole value in its own. */
const MAX_MESSAGE = 400;
const ECHOED_VALUE = 60;

/**
 * `error`, its message shortened if it is too long: a variable a custom scalar (DateTime) refuses
 * is quoted in full ("Variable "$d" got invalid value "…"; DateTime must be …"), 100 kB included.
 */
function withShortMessage(error: GraphQLError): GraphQLError {
  if (error.message.length <= MAX_MESSAGE) return error;
  const elided = error.message.replace(/^(Variable "\$\w+" got invalid value )([\s\S]*)(; [^;]*)$/, (_, head: string, value: string, tail: string) =>
    `${head}${value.slice(0, ECHOED_VALUE)}…${tail}`,
  );
  const message = elided.length <= MAX_MESSAGE ? elided : `${elided.slice(0, MAX_MESSAGE)}…`;
  return new GraphQLError(message, { nodes: error.nodes, path: error.path, extensions: error.extensions });
}

/** `result` with its errors as the caller may see them. */
export function withGraphQLErrors<R extends ExecutionResult>(result: R, logger: Logger, requestId: string | undefined): R {
  return result.errors?.length ? { ...result, errors: result.errors.map((error) => toGraphQLError(error, logger, requestId)) } : result;
}
