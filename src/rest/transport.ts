// /api/v1 (and payment link visits) are served straight from node:http: a merchant's API calls are
// the service's busiest path, and the Web-standard Request/Response adapter costs more CPU than the
// rest of a GET. The same handlers also answer Web-standard requests (app.fetch), through the small
// adapters below.
import type { IncomingMessage, ServerResponse } from "node:http";
import { addressOfNodeRequest, clientAddressOf } from "../gate/client-address.ts";
import { requestIdOf } from "../shared/request-id.ts";

export interface ApiRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** the caller's network address (src/gate/client-address.ts) */
  clientAddress: string;
  /** a header by lower-case name */
  header(name: string): string | null;
  /** the body's bytes as they arrive; null when there is none */
  body(): AsyncIterable<Uint8Array> | null;
  /** the id of the request's log line, for its error lines */
  requestId?: string;
}

export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  /** the body's text: JSON unless a content-type header says otherwise */
  body: string;
  /** the route that answered, as its template ("/api/v1/payments/:id"): the label on /metrics; none when no route was found */
  route?: string;
}

export function apiRequestFromNode(req: IncomingMessage, trustProxy: boolean, requestId?: string): ApiRequest {
  const target = req.url ?? "/";
  const q = target.indexOf("?");
  return {
    method: req.method ?? "GET",
    clientAddress: addressOfNodeRequest(req, trustProxy),
    path: q < 0 ? target : target.slice(0, q),
    query: new URLSearchParams(q < 0 ? "" : target.slice(q + 1)),
    header: (name) => {
      const value = req.headers[name];
      return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
    },
    body: () => req,
    requestId,
  };
}

export function apiRequestFromFetch(request: Request, url: URL): ApiRequest {
  return {
    method: request.method,
    clientAddress: clientAddressOf(request),
    path: url.pathname,
    query: url.searchParams,
    header: (name) => request.headers.get(name),
    body: () => request.body as unknown as AsyncIterable<Uint8Array> | null,
    requestId: requestIdOf(request),
  };
}

const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

export function sendNode(res: ServerResponse, response: ApiResponse): void {
  res.writeHead(response.status, {
    "content-type": JSON_CONTENT_TYPE,
    "content-length": Buffer.byteLength(response.body),
    ...response.headers,
  });
  res.end(response.body);
}

export function toFetchResponse(response: ApiResponse): Response {
  return new Response(response.body, {
    status: response.status,
    headers: { "content-type": JSON_CONTENT_TYPE, ...response.headers },
  });
}

export const jsonResponse = (status: number, body: unknown): Response =>
  toFetchResponse({ status, headers: {}, body: JSON.stringify(body) });
