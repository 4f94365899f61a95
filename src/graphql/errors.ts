// The one place where errors become GraphQL errors, for /graphql (yoga) and /graphql/stream
// (graphql-sse), subscriptions included: a DomainError keeps its message and its code is
// extensions.code; GraphQL's own errors (syntax, validation, bounds, rate limits) pass as they are;
// anything else is logged once, with the request's id, and becomes INTERNAL "Internal server error".
import { type ExecutionResult, GraphQLError } from "graphql";
import { DomainError, INTERNAL_ERROR_MESSAGE, logUnexpectedError } from "../errors.ts";
import { fieldSentence, graphqlFieldPath } from "../shared/field-words.ts";
import type { Logger } from "../shared/logger.ts";

/** extensions.code of an error no caller should see the inside of */
const INTERNAL_CODE = "INTERNAL";

/**
 * A DomainError as GraphQL answers it; `at`: the error graphql-js located it with (path, nodes). A
 * refused input field is told in people's words, its input path in extensions.field (the dashboard
 * shows the message beside that field).
 */
export function graphqlErrorOf(error: DomainError, at?: GraphQLError, extensions: Record<string, unknown> = {}): GraphQLError {
  const field = error.field && {
    message: fieldSentence(error.field),
    extensions: error.field.path.length ? { field: graphqlFieldPath(error.field.path) } : {},
  };
  return new GraphQLError(field?.message ?? error.message, {
    nodes: at?.nodes,
    path: at?.path,
    extensions: { code: error.code, ...field?.extensions, ...extensions },
  });
}

/** `error` as the caller may see it. */
export function toGraphQLError(error: unknown, logger: Logger, requestId: string | undefined): GraphQLError {
  const located = error instanceof GraphQLError ? error : undefined;
  let original = located ? located.originalError : error;
  while (original instanceof GraphQLError && original.originalError) original = original.originalError;
  if (original instanceof DomainError) return graphqlErrorOf(original, located);
  // yoga marks what was thrown as something other than an Error (a string) `unexpected`.
  if (located && (original === undefined || original instanceof GraphQLError) && !located.extensions.unexpected) return withoutEcho(located);
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
 * `error` without what would echo the request: its message shortened if it is too long (a variable a
 * custom scalar (DateTime) refuses is quoted in full: "Variable "$d" got invalid value "…"; DateTime
 * must be …", 100 kB included), and no `extensions.originalError`, where yoga puts the JSON parser's
 * error for a body that is not JSON, whole body quoted.
 */
function withoutEcho(error: GraphQLError): GraphQLError {
  const { originalError, ...extensions } = error.extensions;
  if (error.message.length <= MAX_MESSAGE && originalError === undefined) return error;
  // yoga answers such an error 400 only while originalError is there (200 for application/json
  // otherwise, `http.spec`): keep its status without it.
  if (originalError !== undefined && isHttpExtension(extensions.http)) extensions.http = { status: extensions.http.status };
  return new GraphQLError(shortMessage(error.message), { nodes: error.nodes, path: error.path, extensions });
}

const isHttpExtension = (value: unknown): value is { status?: number } => typeof value === "object" && value !== null;

function shortMessage(message: string): string {
  if (message.length <= MAX_MESSAGE) return message;
  const elided = message.replace(/^(Variable "\$\w+" got invalid value )([\s\S]*)(; [^;]*)$/, (_, head: string, value: string, tail: string) =>
    `${head}${value.slice(0, ECHOED_VALUE)}…${tail}`,
  );
  return elided.length <= MAX_MESSAGE ? elided : `${elided.slice(0, MAX_MESSAGE)}…`;
}

/** `result` with its errors as the caller may see them. */
export function withGraphQLErrors<R extends ExecutionResult>(result: R, logger: Logger, requestId: string | undefined): R {
  return result.errors?.length ? { ...result, errors: result.errors.map((error) => toGraphQLError(error, logger, requestId)) } : result;
}
