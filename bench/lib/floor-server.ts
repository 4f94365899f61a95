// The least the service's busiest requests can do, each in one node:http handler with no routing,
// validation or error handling:
// - GET /api/v1/payments/{id}: hash the API key, read the key and the payment with prepared
//   statements, build the same JSON, answer;
// - GET /api/v1/payments?limit=20: the same with a page of the key's newest payments;
// - POST /api/v1/payments: the body's JSON as it comes, then the service's own create
//   (createPayment: the organization's settings read, the payment and its payment.created event
//   written in one durable group commit) and the same JSON.
// Run as its own process on the service's SQLite file (DB_PATH).
import { type IncomingMessage, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { text } from "node:stream/consumers";
import { loadConfig } from "../../src/config.ts";
import type { Environment } from "../../src/context.ts";
import { openDatabase } from "../../src/db/client.ts";
import { createPayment } from "../../src/modules/payments/payments.service.ts";
import { paymentJson } from "../../src/modules/payments/payments.view.ts";
import { systemClock } from "../../src/shared/clock.ts";
import { timeOrderedIds } from "../../src/shared/ids.ts";
import { toStroops } from "../../src/shared/money.ts";
import { type KeyOwner, keyOwner, newestPaymentsOf, paymentById } from "./floor-reads.ts";

const prefix = "/api/v1/payments/";
const LIST = "/api/v1/payments?limit=20";
const NOT_FOUND = '{"error":"Not found"}';
const config = loadConfig({ DATABASE_URL: `file:${process.env.DB_PATH}` });
const deps = { db: openDatabase(config.databaseUrl).db, config, clock: systemClock, ids: timeOrderedIds };

async function create(request: IncomingMessage, owner: KeyOwner): Promise<string> {
  const body = JSON.parse(await text(request)) as { amount: string; description?: string; metadata?: Record<string, string> };
  const scope = { organizationId: owner.organizationId, environment: owner.environment as Environment, principal: { kind: "key" as const, id: owner.id, role: "admin" as const } };
  const payment = await createPayment({ ...deps, scope }, { amount: toStroops(body.amount), description: body.description, metadata: body.metadata });
  return JSON.stringify(paymentJson(payment, "http://localhost"));
}

function read(request: IncomingMessage, owner: KeyOwner): string | null {
  if (request.url === LIST) {
    const page = newestPaymentsOf(owner, 20);
    return JSON.stringify({ payments: page.payments.map((p) => paymentJson(p, "http://localhost")), has_more: page.hasMore });
  }
  const found = paymentById(request.url!.slice(prefix.length));
  return found && JSON.stringify(paymentJson(found, "http://localhost"));
}

const server = createServer(async (request, response) => {
  const owner = keyOwner(request.headers.authorization);
  const body = !owner ? null : request.method === "POST" ? await create(request, owner) : read(request, owner);
  response.writeHead(body ? (request.method === "POST" ? 201 : 200) : 404, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body ?? NOT_FOUND),
  });
  response.end(body ?? NOT_FOUND);
});
server.listen(0, "127.0.0.1", () => {
  console.log(`floor server listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
