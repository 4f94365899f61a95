// kill -9, as an operator's machine would do it: the real service (src/main.ts in a child process)
// is killed while payments are being created and a webhook delivery is in flight. Restarted on the
// same database, it has lost nothing: every payment it acknowledged exists with its payment.created
// event, no payment exists without its event, and every event reaches the merchant's receiver (the
// one in flight once its lease runs out).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, expect, it } from "vitest";
import type { ChildServer } from "../bench/lib/processes.ts";
import { prepareMerchant, serviceEnv, startServiceProcess } from "../bench/lib/service.ts";
import { waitFor } from "./support/ledger.ts";
import { freshDatabaseUrl } from "./support/test-app.ts";

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** Receives deliveries; holds the very first one unanswered, so one is in flight when the service dies. */
async function startReceiver() {
  const eventIds: string[] = [];
  let held: string | null = null;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const { id } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: string };
      eventIds.push(id);
      if (held === null) {
        held = id;
        return;
      }
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => server.closeAllConnections(), () => new Promise((done) => server.close(done)));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    eventIds,
    held: () => held,
  };
}

function killHard(server: ChildServer): Promise<void> {
  process.kill(server.pid, "SIGKILL");
  return waitFor(
    async () => {
      try {
        process.kill(server.pid, 0);
        return false;
      } catch {
        return true;
      }
    },
    (gone) => gone,
  ).then(() => undefined);
}

it("loses no acknowledged payment, event or webhook delivery when killed with SIGKILL", { timeout: 120_000 }, async () => {
  const database = await freshDatabaseUrl();
  cleanups.push(() => database.drop());
  // The lease of a delivery in flight is the timeout + 30 s: a short timeout keeps the wait for its resend short.
  // The receiver is on 127.0.0.1: private targets are the operator's opt-in.
  const env = serviceEnv(database.url, { LEDGER: "simulated", LOG_LEVEL: "silent", WEBHOOK_TIMEOUT_MS: "1000", WEBHOOK_ALLOW_PRIVATE: "true" });
  const { org, database: setup } = await prepareMerchant(env);
  cleanups.push(() => setup.close());
  const receiver = await startReceiver();

  const first = await startServiceProcess(env);
  const api = (base: string, method: string, path: string, body?: unknown) =>
    fetch(`${base}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${org.sandbox_api_key}`, ...(body !== undefined && { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const endpoint = await api(first.url, "POST", "/webhook-endpoints", { url: `${receiver.url}/hook`, enabled_events: ["payment.created"] });
  expect(endpoint.status).toBe(201);

  // A stream of creates; the service dies in the middle of it, with the first delivery unanswered.
  const acknowledged: string[] = [];
  let stopCreating = false;
  const creators = Array.from({ length: 8 }, async () => {
    while (!stopCreating) {
      try {
        const response = await api(first.url, "POST", "/payments", { amount: "1.5" });
        if (response.status === 201) acknowledged.push(((await response.json()) as { id: string }).id);
      } catch {
        return; // the connection died with the service
      }
    }
  });
  await waitFor(async () => ({ held: receiver.eventIds.length, created: acknowledged.length }), (n) => n.held > 0 && n.created >= 50);
  await killHard(first);
  stopCreating = true;
  await Promise.all(creators);

  const second = await startServiceProcess(env);
  cleanups.push(() => second.stop());

  for (const id of acknowledged) expect((await api(second.url, "GET", `/payments/${id}`)).status).toBe(200);
  const payments = await setup.db.payment.findMany({ select: { id: true } });
  const events = await setup.db.event.findMany({ where: { type: "payment.created" }, select: { id: true, resourceId: true } });
  expect(events.map((e) => e.resourceId).sort()).toEqual(payments.map((p) => p.id).sort());
  expect(payments.length).toBeGreaterThanOrEqual(acknowledged.length);

  // Every event arrives, and the one whose delivery was in flight is sent again once its lease lapses.
  await waitFor(
    async () => receiver.eventIds,
    (received) => events.every((e) => received.includes(e.id)) && received.filter((id) => id === receiver.held()).length >= 2,
    90_000,
  );
});
