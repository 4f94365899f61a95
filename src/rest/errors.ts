// The one place where errors become HTTP: a DomainError's code decides the status and its message is
// the answer; anything else is logged once (with the request's id) and answered 500 with no
// internals. /api/v1, the pages (checkout, payment link visits) and /graphql/stream's refusals all
// answer errors through here.
import { DomainError, type ErrorCode, INTERNAL_ERROR_MESSAGE, logUnexpectedError } from "../errors.ts";
import type { Logger } from "../shared/logger.ts";
import type { ApiResponse } from "./transport.ts";

const HTTP_STATUS: Record<ErrorCode, number> = {
  BAD_REQUEST: 400,
  BAD_USER_INPUT: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  GONE: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  UNAVAILABLE: 503,
};

export const httpStatusOf = (code: ErrorCode): number => HTTP_STATUS[code];

/**
 * The status and message an error answers with. `requestId`: the request line's id, so the line of
 * an unexpected error can be found beside it.
 */
export function httpErrorOf(error: unknown, logger: Logger, requestId: string | undefined): { status: number; message: string } {
  if (error instanceof DomainError) return { status: httpStatusOf(error.code), message: error.message };
  logUnexpectedError(logger, error, requestId);
  return { status: 500, message: INTERNAL_ERROR_MESSAGE };
}

/** The JSON answer `{"error": message}`; `headers` go with a DomainError's answer (no code is a 500). */
export function errorResponse(error: unknown, logger: Logger, headers: Record<string, string> = {}, requestId?: string): ApiResponse {
  const { status, message } = httpErrorOf(error, logger, requestId);
  return { status, headers: status === 500 ? {} : headers, body: JSON.stringify({ error: message }) };
}
