// Serves the app (or any Web-standard fetch handler) over node:http.
import { type RequestListener, STATUS_CODES, createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { createServerAdapter } from "@whatwg-node/server";

export interface RunningServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export function serve(
  handler: ((request: Request) => Promise<Response>) | { listener: RequestListener },
  options: { port: number; host: string },
): Promise<RunningServer> {
  const server = createServer(typeof handler === "function" ? createServerAdapter(handler) : handler.listener);
  // Keep-alive connections outlive a load balancer's idle timeout (commonly 60 s) to avoid resets.
  server.keepAliveTimeout = 65_000;
  server.on("clientError", answerClientError);
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      const { port } = server.address() as AddressInfo;
      const host = options.host === "0.0.0.0" || options.host === "::" ? "127.0.0.1" : options.host;
      resolve({
        url: `http://${host}:${port}`,
        server,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

/** The parser's error, with what it had read (Node sets both on its parse errors). */
type ClientError = Error & { code?: string; bytesParsed?: number; rawPacket?: Buffer };

/**
 * A request that Node's parser refuses never reaches the app. Node would answer it with a status and
 * no body; the ones the API documents get the spec's body `{"error": ...}`: 431 (request line and
 * headers past Node's 16 KiB), told apart as 414 when the request line itself was still being read
 * (no line end yet in what was parsed), and 413 (chunk extensions too large). Others are answered as
 * Node would.
 */
function answerClientError(error: ClientError, socket: Socket & { _httpMessage?: { headersSent: boolean } | null }) {
  // The peer is gone, or the answer to an earlier request on this connection has begun (Node keeps
  // it as _httpMessage and makes the same check): nothing can be said any more.
  if (error.code === "ECONNRESET" || !socket.writable || socket._httpMessage?.headersSent) return void socket.destroy(error);
  socket.end(clientErrorResponse(error));
}

function clientErrorResponse(error: ClientError): string {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW": {
      const parsed = error.rawPacket?.subarray(0, error.bytesParsed ?? 0);
      const inRequestLine = parsed !== undefined && !parsed.includes(0x0a);
      return inRequestLine
        ? jsonError(414, "Request line too long")
        : jsonError(431, "Request header fields too large");
    }
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return jsonError(413, "Chunk extensions too large");
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return bare(408);
    default:
      return bare(400);
  }
}

const bare = (status: number) => `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n\r\n`;

function jsonError(status: number, message: string): string {
  const body = JSON.stringify({ error: message });
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}
