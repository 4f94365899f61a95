// The least a GET /api/v1/payments/{id} can do: hash the API key, read the key and the payment with
// prepared statements, build the same JSON, answer. No routing, validation or error handling.
// Run as its own process on the service's SQLite file (DB_PATH).
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import BetterSqlite3 from "better-sqlite3";
import { rowConverter } from "../../src/db/direct-sql.ts";
import type { Payment } from "../../src/generated/sqlite/client.ts";
import { paymentJson } from "../../src/modules/payments/payments.view.ts";

const db = new BetterSqlite3(process.env.DB_PATH!, { readonly: true });
const apiKey = db.prepare(`SELECT "organizationId" FROM "ApiKey" WHERE "hash" = ?`);
const payment = db.prepare(`SELECT * FROM "Payment" WHERE "id" = ?`).safeIntegers(true);
const toPayment = rowConverter<Payment>("Payment");
const prefix = "/api/v1/payments/";

const server = createServer((request, response) => {
  const key = (request.headers.authorization ?? "").slice("Bearer ".length);
  const owner = apiKey.get(createHash("sha256").update(key).digest("hex"));
  const found = toPayment(payment.get(request.url!.slice(prefix.length)) as Record<string, unknown> | undefined);
  const body = owner && found ? JSON.stringify(paymentJson(found, "http://localhost")) : '{"error":"Not found"}';
  response.writeHead(owner && found ? 200 : 404, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body) });
  response.end(body);
});
server.listen(0, "127.0.0.1", () => {
  console.log(`floor server listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
