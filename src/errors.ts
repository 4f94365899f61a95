// The one error family: a code and a message, no HTTP or GraphQL knowledge. Each door maps the code
// once: REST (and the pages) to a status in src/rest/errors.ts, GraphQL to extensions.code in
// src/graphql/errors.ts. Anything that is not a DomainError is a bug: logged, and answered without
// its internals (500 / INTERNAL).
import type { Logger } from "./shared/logger.ts";

export type ErrorCode =
  | "BAD_REQUEST"
  /** GraphQL's name for a bad argument that is not a field of an input (a connection's cursor) */
  | "BAD_USER_INPUT"
  | "UNAUTHENTICATED"
  /** authenticated, but the caller's role may not do this */
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "METHOD_NOT_ALLOWED"
  | "CONFLICT"
  | "GONE"
  | "PAYLOAD_TOO_LARGE"
  | "UNSUPPORTED_MEDIA_TYPE"
  | "RATE_LIMITED"
  | "UNAVAILABLE";

/**
 * The input field a refusal is about, for the doors that speak to people in their own words
 * (GraphQL, so the dashboard shows it beside the field): REST keeps the spec's message.
 */
export interface FieldProblem {
  /** as the input schema names it (items[0].unit_amount is ["items", 0, "unit_amount"]); empty: about no one field (then `words` say it) */
  path: (string | number)[];
  /** the message's phrase after the field's name ("must be at most 365") */
  problem: string;
  /** the whole sentence for people, where the field's name and the phrase do not make one */
  words?: string;
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly field?: FieldProblem,
  ) {
    super(message);
    this.name = "DomainError";
  }
}

export const badRequest = (message: string, field?: FieldProblem) => new DomainError("BAD_REQUEST", message, field);
export const unauthorized = (message = "Unauthorized") => new DomainError("UNAUTHENTICATED", message);
export const forbidden = (message: string, field?: FieldProblem) => new DomainError("FORBIDDEN", message, field);
export const notFound = (message = "Not found") => new DomainError("NOT_FOUND", message);
export const methodNotAllowed = (message: string) => new DomainError("METHOD_NOT_ALLOWED", message);
export const conflict = (message: string, field?: FieldProblem) => new DomainError("CONFLICT", message, field);
export const gone = (message: string) => new DomainError("GONE", message);
export const payloadTooLarge = () => new DomainError("PAYLOAD_TOO_LARGE", "Request body is larger than 1 MiB");
export const unsupportedMediaType = () => new DomainError("UNSUPPORTED_MEDIA_TYPE", "Content-Type must be application/json");
export const tooManyRequests = (message = "Too many requests") => new DomainError("RATE_LIMITED", message);
export const unavailable = (message: string) => new DomainError("UNAVAILABLE", message);

/** What any door answers in place of an error that is not a DomainError. */
export const INTERNAL_ERROR_MESSAGE = "Internal server error";

/**
 * The one log line of an error that is not a DomainError, with the id of the request it broke
 * (the request line's `request_id`, the caller's X-Request-Id).
 */
export function logUnexpectedError(logger: Logger, error: unknown, requestId: string | undefined): void {
  logger.error("unexpected error", { error, request_id: requestId });
}
