// Serves the app (or any Web-standard fetch handler) over node:http.
import { type RequestListener, createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
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
