// Serves a Web-standard fetch handler over node:http.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createServerAdapter } from "@whatwg-node/server";

export interface RunningServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export function serve(fetch: (request: Request) => Promise<Response>, options: { port: number; host: string }): Promise<RunningServer> {
  const server = createServer(createServerAdapter(fetch));
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
