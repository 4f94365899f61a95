// The plain reference for the service's REST reads and creates (bench/reads.ts, #29): one node:http
// handler, no framework, no routing beyond three URL shapes, nothing of src/:
//   GET  /api/v1/payments/{id}         the payment, or 404
//   GET  /api/v1/payments?limit=N      the key's N newest payments and has_more
//   POST /api/v1/payments              one INSERT per request, 201 and the payment
// Any other caller than a live API key gets a 401. Run as its own process with DATABASE_URL (the
// service's database) and PUBLIC_URL (the service's, so checkout_url is the same).
import { type IncomingMessage, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { text } from "node:stream/consumers";
import { referencePaymentJson, referenceStroops } from "./reference-json.ts";
import { type KeyOwner, openReferenceStore } from "./reference-store.ts";

const store = openReferenceStore(process.env.DATABASE_URL!);
const publicUrl = process.env.PUBLIC_URL!;
const PAYMENTS = "/api/v1/payments";

async function answer(method: string, url: string, owner: KeyOwner, body: () => Promise<string>): Promise<[number, string]> {
  if (method === "POST") {
    const input = JSON.parse(await body()) as { amount: string; description?: string; metadata?: Record<string, string> };
    const row = await store.insertPayment(owner, {
      amount: referenceStroops(input.amount),
      description: input.description ?? null,
      metadata: input.metadata ? JSON.stringify(input.metadata) : null,
    });
    return [201, JSON.stringify(referencePaymentJson(row, publicUrl))];
  }
  if (url.startsWith(`${PAYMENTS}?`)) {
    const limit = Number(new URLSearchParams(url.slice(PAYMENTS.length + 1)).get("limit") ?? 10);
    const page = await store.newestPayments(owner, limit);
    return [200, JSON.stringify({ payments: page.rows.map((p) => referencePaymentJson(p, publicUrl)), has_more: page.hasMore })];
  }
  const row = await store.paymentById(owner, url.slice(PAYMENTS.length + 1));
  return row ? [200, JSON.stringify(referencePaymentJson(row, publicUrl))] : [404, '{"error":"Not found"}'];
}

async function respond(request: IncomingMessage, response: ServerResponse) {
  const owner = await store.keyOwner(request.headers.authorization);
  const [status, body] = owner
    ? await answer(request.method!, request.url!, owner, () => text(request))
    : [401, '{"error":"Invalid API key"}'];
  response.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body) });
  response.end(body);
}

// A load generator that stops closes connections mid-request: that request is dropped, not a crash.
const server = createServer((request, response) => {
  respond(request, response).catch((error: Error) => {
    if (request.destroyed) return;
    console.error(error);
    response.writeHead(500).end();
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, "127.0.0.1", () => {
  console.log(`reference server listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
