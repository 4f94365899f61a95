// Reads a write's JSON body: 415 without application/json, 413 past 1 MiB, 400 for bad JSON, for
// a body that is not an object, or for one no schema may see (refuseUnstorableInput).
import { badRequest, payloadTooLarge, unsupportedMediaType } from "../errors.ts";
import { refuseUnstorableInput } from "../shared/validation.ts";
import type { ApiRequest } from "./transport.ts";

export const MAX_BODY_BYTES = 1024 * 1024;
const DRAIN_LIMIT_BYTES = 16 * MAX_BODY_BYTES;

/** The body as text, or 413 past 1 MiB (also /graphql/stream's limit). */
export async function readLimited(request: ApiRequest): Promise<string> {
  const declared = Number(request.header("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) throw payloadTooLarge();
  const body = request.body();
  if (!body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    // Past the limit, keep reading and discarding for a while: a socket closed with unread data is
    // reset, and the client would see the reset instead of the 413.
    if (size > DRAIN_LIMIT_BYTES) break;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  }
  if (size > MAX_BODY_BYTES) throw payloadTooLarge();
  return Buffer.concat(chunks).toString("utf8");
}

const isJson = (contentType: string | null) => /^application\/json\s*(;|$)/i.test(contentType ?? "");

/** The parsed body object; `{}` for an empty body where the route takes none. */
export async function readJsonBody(request: ApiRequest, bodyless: boolean): Promise<{ raw: string; body: Record<string, unknown> }> {
  const contentType = request.header("content-type");
  if (!isJson(contentType) && !(bodyless && !contentType)) {
    // Drain nothing: the client sent the wrong kind of body, and nothing of it is read.
    throw unsupportedMediaType();
  }
  const raw = await readLimited(request);
  if (raw.trim() === "") {
    if (bodyless) return { raw, body: {} };
    throw badRequest("Request body must be a JSON object");
  }
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    throw badRequest("Request body is not valid JSON");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw badRequest("Request body must be a JSON object");
  }
  refuseUnstorableInput(body, "body");
  return { raw, body: body as Record<string, unknown> };
}
