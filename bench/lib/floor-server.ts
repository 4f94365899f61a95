// The least a GET /api/v1/payments/{id} can do: hash the API key, read the key and the payment with
// prepared statements, build the same JSON, answer; and GET /api/v1/payments?limit=20 the same way
// with a page of the key's payments. No routing, validation or error handling.
// Run as its own process on the service's SQLite file (DB_PATH).
import { type IncomingMessage, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { paymentJson } from "../../src/modules/payments/payments.view.ts";
import { keyOwner, newestPaymentsOf, paymentById } from "./floor-reads.ts";

const prefix = "/api/v1/payments/";
const LIST = "/api/v1/payments?limit=20";
const NOT_FOUND = '{"error":"Not found"}';

function answer(request: IncomingMessage): string | null {
  const owner = keyOwner(request.headers.authorization);
  if (!owner) return null;
  if (request.url === LIST) {
    const page = newestPaymentsOf(owner, 20);
    return JSON.stringify({ payments: page.payments.map((p) => paymentJson(p, "http://localhost")), has_more: page.hasMore });
  }
  const found = paymentById(request.url!.slice(prefix.length));
  return found && JSON.stringify(paymentJson(found, "http://localhost"));
}

const server = createServer((request, response) => {
  const body = answer(request);
  response.writeHead(body ? 200 : 404, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body ?? NOT_FOUND) });
  response.end(body ?? NOT_FOUND);
});
server.listen(0, "127.0.0.1", () => {
  console.log(`floor server listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
