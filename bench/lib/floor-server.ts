// The least a GET /api/v1/payments/{id} can do: hash the API key, read the key and the payment with
// prepared statements, build the same JSON, answer. No routing, validation or error handling.
// Run as its own process on the service's SQLite file (DB_PATH).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { paymentJson } from "../../src/modules/payments/payments.view.ts";
import { knownKey, paymentById } from "./floor-reads.ts";

const prefix = "/api/v1/payments/";

const server = createServer((request, response) => {
  const owner = knownKey(request.headers.authorization);
  const found = paymentById(request.url!.slice(prefix.length));
  const body = owner && found ? JSON.stringify(paymentJson(found, "http://localhost")) : '{"error":"Not found"}';
  response.writeHead(owner && found ? 200 : 404, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body) });
  response.end(body);
});
server.listen(0, "127.0.0.1", () => {
  console.log(`floor server listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
