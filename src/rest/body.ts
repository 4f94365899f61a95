// Reads a write's JSON body: 415 without application/json, 413 past 1 MiB, 400 for bad JSON, for
// a body that is not an object, or for one no schema may see (refuseUnstorableInput).
import { badRequest, payloadTooLarge, unsupportedMediaType } from "../errors.ts";
import { refuseUnstorableInput } from "../shared/validation.ts";
import type { ApiRequest } from "./transport.ts";

export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The body as text, or 413 past 1 MiB (also /graphql/stream's limit): refused as soon as the count
 * passes the limit, before anything else answers. The rest of the body is then read and dropped,
 * never kept: a connection closed with unread data is reset, and the reset reaches the client before
 * (and instead of) the 413 it was sent. Node's requestTimeout bounds how long that reading lasts.
 */
export async function readLimited(request: ApiRequest): Promise<string> {
  return (await readWithinLimit(request.header("content-length"), request.body())).toString("utf8");
}

/** The body's bytes, as readLimited reads them (the GraphQL doors read theirs with it too, src/app.ts). */
export async function readWithinLimit(contentLength: string | null | undefined, body: AsyncIterable<Uint8Array> | null): Promise<Buffer> {
  if (Number(contentLength ?? "0") > MAX_BODY_BYTES) throw payloadTooLarge();
  if (!body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const iterator = body[Symbol.asyncIterator]();
  for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
    size += next.value.byteLength;
    if (size > MAX_BODY_BYTES) {
      void discardRest(iterator);
      throw payloadTooLarge();
    }
    chunks.push(next.value);
  }
  return Buffer.concat(chunks);
}

/** Reads to the end and keeps nothing; `for await` or `break` would destroy the stream, and the connection with it. */
async function discardRest(iterator: AsyncIterator<Uint8Array>): Promise<void> {
  try {
    while (!(await iterator.next()).done);
  } catch {
    // The client hung up: nothing left to read.
  }
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
