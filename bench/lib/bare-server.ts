// The baseline: the smallest node:http server answering a JSON hello, run as its own process.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

const body = JSON.stringify({ hello: "world" });
const server = createServer((request, response) => {
  request.resume();
  request.on("end", () => {
    response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    response.end(body);
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, "127.0.0.1", () => {
  console.log(`bare node:http listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
