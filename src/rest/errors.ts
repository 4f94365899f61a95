// The one place where errors become HTTP: a DomainError keeps its status and message, anything else
// is logged and answered 500 with no internals.
import { DomainError } from "../errors.ts";
import type { Logger } from "../shared/logger.ts";
import type { ApiResponse } from "./transport.ts";

/** `requestId`: the request line's id, so the error's line can be found beside it. */
export function errorResponse(error: unknown, logger: Logger, headers: Record<string, string> = {}, requestId?: string): ApiResponse {
  if (error instanceof DomainError) return { status: error.httpStatus, headers, body: JSON.stringify({ error: error.message }) };
  logger.error("unexpected error", { error, request_id: requestId });
  return { status: 500, headers: {}, body: JSON.stringify({ error: "Internal server error" }) };
}
