// kill -9, as an operator's machine would do it: the real service (src/main.ts in a child process)
// is killed while payments are being created and a webhook delivery is in flight. Restarted on the
// same database, it has lost nothing: every payment it acknowledged exists with its payment.created
// event, no payment exists without its event, and every event reaches the merchant's receiver (the
// one in flight once its lease runs out).
// And killed inside a payment's completion (the test hook TEST_CRASH_AT=completion-before-commit),
// after the ledger closed the payer's transaction and before the completion committed, in one
// process and as a cluster: restarted, it completes the payment exactly once, with one
// payment.completed event and one webhook delivery of it.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Networks } from "@stellar/stellar-sdk";
import { expect, it } from "vitest";
import { type ChildServer, isAlive, workerPids } from "../bench/lib/processes.ts";
import { prepareMerchant, serviceEnv, startServiceProcess } from "../bench/lib/service.ts";
import { SimulatedNetwork } from "../src/ledger/simulated/index.ts";
import { serve } from "../src/server.ts";
import { systemClock } from "../src/shared/clock.ts";
import { fundedPayer, payOp, signedTransaction, submit, waitFor, walletOn } from "./support/ledger.ts";
import { fileCleanups } from "./support/file-cleanups.ts";
import { freshDatabaseUrl, ledgerApi, onLedgerApi, testnetEnv } from "./support/test-app.ts";

const cleanups = fileCleanups();
// With TEST_LEDGER_API=rpc (vitest.config.ts's postgresql-rpc project) only what the ledger source
// changes runs again: the completion killed before its commit, in one process. The creates' kill and
// the cluster's are the same code whichever source watches the ledger, and run with Horizon.
const rpcRun = ledgerApi === "rpc";

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


const gone = (pids: number[], timeoutMs?: number) => waitFor(async () => pids.filter(isAlive), (alive) => alive.length === 0, timeoutMs).then(() => undefined);

function killHard(server: ChildServer): Promise<void> {
  process.kill(server.pid, "SIGKILL");
  return gone([server.pid]);
}


if (!rpcRun) {
  it("loses no acknowledged payment, event or webhook delivery when killed with SIGKILL", { timeout: 120_000 }, async () => {
    const database = await freshDatabaseUrl();
    cleanups.push(() => database.drop());
    // The lease of a delivery in flight is the timeout + 30 s: a short timeout keeps the wait for its resend short.
    // The receiver is on 127.0.0.1: private targets are the operator's opt-in.
    const env = serviceEnv(database.url, onLedgerApi({ LEDGER: "simulated", LOG_LEVEL: "silent", WEBHOOK_TIMEOUT_MS: "1000", WEBHOOK_ALLOW_PRIVATE: "true" }));
    const { org, database: setup } = await prepareMerchant(env);
    cleanups.push(() => setup.close());
    const receiver = await startReceiver();

    const first = await startServiceProcess(env);
    cleanups.push(() => first.stop());
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
}

/** A Stellar test network of our own, reached over HTTP as Horizon would be: it outlives the service's restarts. */
async function startHorizon() {
  const network = new SimulatedNetwork({ networkPassphrase: Networks.TESTNET, basePath: "/net", ledgerCloseMs: 100, clock: systemClock });
  const server = await serve((request) => network.fetch(request), { port: 0, host: "127.0.0.1" });
  network.start();
  cleanups.push(() => server.close(), () => network.stop());
  return { network, url: `${server.url}/net/horizon`, base: `${server.url}/net` };
}

/** Receives deliveries, answering 200: each event id and Service-Delivery-ID it got, in order. */
async function startCountingReceiver() {
  const received: { eventId: string; type: string; deliveryId: string }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const { id, event } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: string; event: string };
      received.push({ eventId: id, type: event, deliveryId: String(req.headers["service-delivery-id"]) });
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => server.closeAllConnections(), () => new Promise((done) => server.close(done)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
}

for (const workers of rpcRun ? [1] : [1, 2]) {
  it(`completes a payment exactly once after a kill between the ledger close and the completion's commit (WORKERS=${workers})`, { timeout: 120_000 }, async () => {
    const horizon = await startHorizon();
    const database = await freshDatabaseUrl();
    cleanups.push(() => database.drop());
    const env = serviceEnv(database.url, { WORKERS: String(workers), LOG_LEVEL: "silent", ...testnetEnv(horizon.base), WEBHOOK_ALLOW_PRIVATE: "true" });
    const { org, wallet, database: setup } = await prepareMerchant(env);
    cleanups.push(() => setup.close());
    await horizon.network.fund(wallet);
    const receiver = await startCountingReceiver();

    const first = await startServiceProcess({ ...env, TEST_CRASH_AT: "completion-before-commit" });
    cleanups.push(() => first.stop());
    const api = async (base: string, method: string, path: string, body?: unknown) => {
      const response = await fetch(`${base}/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${org.sandbox_api_key}`, ...(body !== undefined && { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as any };
    };
    expect((await api(first.url, "POST", "/webhook-endpoints", { url: receiver.url, enabled_events: ["payment.completed"] })).status).toBe(201);
    const payment = (await api(first.url, "POST", "/payments", { amount: "2" })).body;
    const processes = workers === 1 ? [first.pid] : [first.pid, ...workerPids(first.pid)];
    expect(processes).toHaveLength(workers === 1 ? 1 : 3);

    // The payer pays; the ledger closes the transaction, and the service dies completing the payment.
    const payerWallet = walletOn(horizon.network, horizon.url);
    const payer = await fundedPayer(payerWallet);
    const sent = await submit(payerWallet, await signedTransaction(payerWallet, payer, [payOp(payment.payment_instructions.muxed_destination, "2")]));
    expect(sent.hash).toBeTruthy();
    if (workers === 1) await gone([first.pid], 20_000);
    else {
      // The worker streaming the wallet dies; the primary would start another, which would die the same way.
      await waitFor(async () => processes.slice(1).filter(isAlive), (alive) => alive.length < 2, 20_000);
      const all = [first.pid, ...workerPids(first.pid), ...processes.slice(1)];
      process.kill(first.pid, "SIGKILL");
      await gone(all, 20_000);
    }

    // Nothing of the completion was committed: the payment still waits, its operation is not counted.
    expect(await setup.db.payment.findUniqueOrThrow({ where: { id: payment.id } })).toMatchObject({ status: "pending", amountReceived: 0n });
    expect(await setup.db.event.count({ where: { resourceId: payment.id, type: "payment.completed" } })).toBe(0);
    expect(await setup.db.ledgerPayment.count()).toBe(0);

    // Restarted on the same database (without the hook), it resumes from its cursor and completes the payment once.
    const second = await startServiceProcess(env);
    cleanups.push(() => second.stop());
    const completed = await waitFor(async () => (await api(second.url, "GET", `/payments/${payment.id}`)).body, (p) => p.status === "completed", 30_000);
    expect(completed).toMatchObject({ tx_hash: sent.hash, amount_received: "2.0000000", payer_address: payer.publicKey() });
    const events = await setup.db.event.findMany({ where: { resourceId: payment.id, type: "payment.completed" } });
    expect(events).toHaveLength(1);
    await waitFor(async () => receiver.received, (r) => r.length > 0, 20_000);
    // Give a second delivery, were there one, time to arrive.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.received).toEqual([{ eventId: events[0]!.id, type: "payment.completed", deliveryId: expect.stringMatching(/^whd_/) }]);
    expect(await setup.db.webhookDelivery.findMany({ where: { eventId: events[0]!.id }, select: { status: true } })).toEqual([{ status: "succeeded" }]);
    expect(await setup.db.ledgerPayment.count({ where: { paymentId: payment.id } })).toBe(1);
  });
}
