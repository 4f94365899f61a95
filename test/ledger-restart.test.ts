// Restarts: the service stops between ledgers, payments land while it is down, a new process on the
// same database picks up from the persisted cursor. Nothing is missed, nothing completes twice.
// The simulated network runs on its own server here (as a real Horizon would), outliving the apps.
import { Keypair, Networks } from "@stellar/stellar-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAlive } from "../bench/lib/processes.ts";
import { prepareMerchant, serviceEnv, startServiceProcess } from "../bench/lib/service.ts";
import { type App, buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { type Database, openDatabase } from "../src/db/client.ts";
import { SimulatedNetwork } from "../src/ledger/simulated/index.ts";
import { createOrganization, setSettlementWallet } from "../src/modules/organizations/organizations.service.ts";
import { type RunningServer, serve } from "../src/server.ts";
import { timeOrderedIds } from "../src/shared/ids.ts";
import { createLogger } from "../src/shared/logger.ts";
import { type Wallet, fundedPayer, payOp, signedTransaction, submit, waitFor, walletOn } from "./support/ledger.ts";
import { TestClock, dialect, freshDatabaseUrl, testnetEnv } from "./support/test-app.ts";

interface RunningApp {
  app: App;
  server: RunningServer;
  database: Database;
  stop(): Promise<void>;
}

let network: SimulatedNetwork;
let networkServer: RunningServer;
let wallet: Wallet;
let databaseUrl: string;
let dropDatabase: () => Promise<void>;
const settlement = Keypair.random();
let apiKey: string;
const clock = new TestClock();

/**
 * `networkUrl`: where the simulated network is served (its Horizon and its RPC below it); `api`: the
 * one the app reaches it by (the one under test unless given).
 */
async function startApp(networkUrl = networkServer.url, url = databaseUrl, api?: "horizon" | "rpc"): Promise<RunningApp> {
  const reach = api === undefined ? testnetEnv(networkUrl) : api === "rpc" ? { STELLAR_RPC_TESTNET_URL: `${networkUrl}/rpc` } : { HORIZON_TESTNET_URL: `${networkUrl}/horizon` };
  const config = loadConfig({
    DATABASE_URL: url,
    PUBLIC_URL: "http://pay.example.test",
    LEDGER: "horizon",
    ...reach,
    RATE_LIMIT_SANDBOX: "0",
    LOG_LEVEL: "silent",
  });
  const database = openDatabase(config.databaseUrl);
  const app = buildApp({ db: database.db, config, clock, ids: timeOrderedIds, logger: createLogger(config.logLevel) });
  const server = await serve(app.fetch, { port: 0, host: "127.0.0.1" });
  await app.start({ url: server.url });
  return {
    app,
    server,
    database,
    async stop() {
      await server.close();
      await app.stop();
      await database.close();
    },
  };
}

async function api(running: RunningApp, method: string, path: string, body?: unknown) {
  const response = await fetch(`${running.server.url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body !== undefined && { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return response.json() as Promise<any>;
}

beforeAll(async () => {
  network = new SimulatedNetwork({ networkPassphrase: Networks.TESTNET, basePath: "", ledgerCloseMs: 50 });
  networkServer = await serve((request) => network.fetch(request), { port: 0, host: "127.0.0.1" });
  network.start();
  wallet = walletOn(network, `${networkServer.url}/horizon`);
  await network.fund(settlement.publicKey());
  ({ url: databaseUrl, drop: dropDatabase } = await freshDatabaseUrl());
  const setup = openDatabase(databaseUrl);
  const deps = { db: setup.db, config: loadConfig({ DATABASE_URL: databaseUrl }), clock, ids: timeOrderedIds };
  const org = await createOrganization(deps, { name: "Restart Merchant" });
  await setSettlementWallet(deps, { organizationId: org.organization_id, environment: "sandbox", address: settlement.publicKey() });
  apiKey = org.sandbox_api_key;
  await setup.close();
});

afterAll(async () => {
  await network.stop();
  await networkServer.close();
  await dropDatabase();
});

describe("restarting the service", () => {
  it("misses nothing that landed while it was down and completes nothing twice", async () => {
    const first = await startApp();
    const [a, b, c] = [
      await api(first, "POST", "/payments", { amount: "1" }),
      await api(first, "POST", "/payments", { amount: "2" }),
      await api(first, "POST", "/payments", { amount: "3" }),
    ];
    const payer = await fundedPayer(wallet);
    const pay = async (payment: any, amount: string) => {
      const sent = await submit(wallet, await signedTransaction(wallet, payer, [payOp(payment.payment_instructions.muxed_destination, amount)]));
      expect(sent.codes).toBeUndefined();
      return sent.hash!;
    };
    const paidA = await pay(a, "1");
    await waitFor(() => api(first, "GET", `/payments/${a.id}`), (p) => p.status === "completed");
    await first.stop();

    // Down: B is paid in full, C in part.
    const paidB = await pay(b, "2");
    await pay(c, "1");

    const second = await startApp();
    const doneB = await waitFor(() => api(second, "GET", `/payments/${b.id}`), (p) => p.status === "completed");
    expect(doneB.tx_hash).toBe(paidB);
    await waitFor(() => api(second, "GET", `/payments/${c.id}`), (p) => p.amount_received === "1.0000000");
    const paidC = await pay(c, "2");
    const doneC = await waitFor(() => api(second, "GET", `/payments/${c.id}`), (p) => p.status === "completed");
    expect(doneC).toMatchObject({ tx_hash: paidC, amount_received: "3.0000000" });
    expect((await api(second, "GET", `/payments/${a.id}`)).tx_hash).toBe(paidA);

    const db = second.database.db;
    const completions = await db.event.groupBy({ by: ["resourceId"], where: { type: "payment.completed" }, _count: true });
    expect(completions.map((row) => [row.resourceId, row._count]).sort()).toEqual([[a.id, 1], [b.id, 1], [c.id, 1]].sort());
    // Each of the four payment operations once (Stellar RPC also shows the wallet's funding, an unmatched transfer).
    expect(await db.ledgerPayment.count({ where: { account: settlement.publicKey(), paymentId: { not: null } } })).toBe(4);
    await second.stop();
  });

  it("switched from Horizon to Stellar RPC and back across restarts: the cursor carries over, nothing missed, nothing counted twice", async () => {
    const payer = await fundedPayer(wallet);
    const pay = async (payment: any) => {
      const sent = await submit(wallet, await signedTransaction(wallet, payer, [payOp(payment.payment_instructions.muxed_destination, payment.amount)]));
      expect(sent.codes).toBeUndefined();
      return sent.hash!;
    };
    const onHorizon = await startApp(networkServer.url, databaseUrl, "horizon");
    const payments = [];
    for (const amount of ["1", "2", "3", "4"]) payments.push(await api(onHorizon, "POST", "/payments", { amount }));
    const [a, b, c, d] = payments;
    const completed = (running: RunningApp, payment: any) => waitFor(() => api(running, "GET", `/payments/${payment.id}`), (p) => p.status === "completed", 20_000);
    await pay(a);
    await completed(onHorizon, a);
    await onHorizon.stop();

    // Down; back on Stellar RPC: its stream starts where Horizon's paging token left off.
    await pay(b);
    const onRpc = await startApp(networkServer.url, databaseUrl, "rpc");
    await completed(onRpc, b);
    await pay(c);
    await completed(onRpc, c);
    await onRpc.stop();

    // Down; back on Horizon: its stream starts where RPC's event cursor left off.
    await pay(d);
    const back = await startApp(networkServer.url, databaseUrl, "horizon");
    await completed(back, d);

    const db = back.database.db;
    const ids = payments.map((p) => p.id);
    for (const id of ids) expect(await db.event.count({ where: { resourceId: id, type: "payment.completed" } })).toBe(1);
    // Each payment's operation recorded once, under one API's id or the other's, and each received exactly its amount.
    expect(await db.ledgerPayment.count({ where: { paymentId: { in: ids } } })).toBe(4);
    for (const p of payments) expect((await api(back, "GET", `/payments/${p.id}`)).amount_received).toBe(p.amount);
    await back.stop();
  }, 90_000);

  it("with two processes at once, each payment still completes exactly once", async () => {
    const one = await startApp();
    const two = await startApp();
    const payments = [];
    for (const amount of ["1", "2", "3"]) payments.push(await api(one, "POST", "/payments", { amount }));
    await one.app.ledger.streamer.refresh();
    await two.app.ledger.streamer.refresh();
    if (dialect === "postgresql") {
      // The advisory lock gives the network's stream to exactly one of them.
      expect([one, two].filter((r) => r.app.ledger.streamer.watching().includes(Networks.TESTNET))).toHaveLength(1);
    }
    const payer = await fundedPayer(wallet);
    for (const p of payments) {
      await submit(wallet, await signedTransaction(wallet, payer, [payOp(p.payment_instructions.muxed_destination, p.amount)]));
    }
    for (const p of payments) await waitFor(() => api(two, "GET", `/payments/${p.id}`), (r) => r.status === "completed");
    const db = one.database.db;
    for (const p of payments) {
      expect(await db.event.count({ where: { resourceId: p.id, type: "payment.completed" } })).toBe(1);
    }
    await one.stop();
    await two.stop();
  });

  it("keeps serving while Horizon is down, and streams again once it is back", async () => {
    // A network whose Horizon is down: its server answers 503 until it comes up. (Not a closed port
    // opened again later: in a full run another test's socket could take that port meanwhile.)
    const later = new SimulatedNetwork({ networkPassphrase: Networks.TESTNET, basePath: "", ledgerCloseMs: 50 });
    let up = false;
    const laterServer = await serve(async (request) => (up ? later.fetch(request) : new Response("Horizon is down", { status: 503 })), {
      port: 0,
      host: "127.0.0.1",
    });

    // A ledger of its own is a network of its own: its own database, as the first network's cursor
    // (same passphrase, a different history) means nothing on it.
    const own = await freshDatabaseUrl();
    const running = await startApp(laterServer.url, own.url);
    const wallet2 = Keypair.random();
    const setupDeps = { db: running.database.db, config: loadConfig({ DATABASE_URL: own.url }), clock, ids: timeOrderedIds };
    const org = await createOrganization(setupDeps, { name: "Down Merchant" });
    await setSettlementWallet(setupDeps, { organizationId: org.organization_id, environment: "sandbox", address: wallet2.publicKey() });
    const response = await fetch(`${running.server.url}/api/v1/payments`, {
      method: "POST",
      headers: { authorization: `Bearer ${org.sandbox_api_key}`, "content-type": "application/json" },
      body: JSON.stringify({ amount: "1" }),
    });
    const payment = (await response.json()) as any;
    await running.app.ledger.streamer.refresh();
    expect((await fetch(`${running.server.url}/health`)).status).toBe(200);

    // Horizon comes up; the stream's next retry finds it.
    up = true;
    later.start();
    await later.fund(wallet2.publicKey());
    const laterWallet = walletOn(later, `${laterServer.url}/horizon`);
    const payer = await fundedPayer(laterWallet);
    const sent = await submit(laterWallet, await signedTransaction(laterWallet, payer, [payOp(payment.payment_instructions.muxed_destination, "1")]));
    const read = async () =>
      (await fetch(`${running.server.url}/api/v1/payments/${payment.id}`, { headers: { authorization: `Bearer ${org.sandbox_api_key}` } })).json() as Promise<any>;
    // The stream retries with backoff up to 30 s (streamer.ts): on a loaded machine the time Horizon
    // was down may have grown it past 20 s.
    const done = await waitFor(read, (p) => p.status === "completed", 45_000);
    expect(done.tx_hash).toBe(sent.hash);
    await running.stop();
    await later.stop();
    await laterServer.close();
    await own.drop();
  }, 60_000);

  it("killed with SIGKILL while completing, paid more while down: restarted, every payment completes once", { timeout: 120_000 }, async () => {
    const database = await freshDatabaseUrl();
    const env = serviceEnv(database.url, { LEDGER: "horizon", ...testnetEnv(networkServer.url), LOG_LEVEL: "silent" });
    const { org, wallet: settlementWallet, database: setup } = await prepareMerchant(env);
    await network.fund(settlementWallet);
    const api = async (base: string, method: string, path: string, body?: unknown) => {
      const response = await fetch(`${base}/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${org.sandbox_api_key}`, ...(body !== undefined && { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return response.json() as Promise<any>;
    };
    const first = await startServiceProcess(env);
    try {
      const payments: any[] = [];
      for (let i = 0; i < 12; i++) payments.push(await api(first.url, "POST", "/payments", { amount: "1" }));
      const completedCount = () => setup.db.payment.count({ where: { id: { in: payments.map((p) => p.id) }, status: "completed" } });
      const payOne = async (payer: Keypair, payment: any) => {
        const sent = await submit(wallet, await signedTransaction(wallet, payer, [payOp(payment.payment_instructions.muxed_destination, "1")]));
        expect(sent.codes).toBeUndefined();
      };

      // Six payers pay at once; the service is killed as soon as the first of those completions is committed.
      const payers = await Promise.all(payments.slice(0, 6).map(() => fundedPayer(wallet)));
      const paying = Promise.all(payments.slice(0, 6).map((payment, i) => payOne(payers[i]!, payment)));
      await waitFor(completedCount, (n) => n > 0, 30_000);
      process.kill(first.pid, "SIGKILL");
      await waitFor(async () => isAlive(first.pid), (alive) => !alive, 10_000);
      await paying;

      // Down: the other six are paid.
      for (const payment of payments.slice(6)) await payOne(payers[0]!, payment);

      const second = await startServiceProcess(env);
      try {
        await waitFor(completedCount, (n) => n === payments.length, 30_000);
      } finally {
        await second.stop();
      }
      const completions = await setup.db.event.groupBy({ by: ["resourceId"], where: { type: "payment.completed" }, _count: true });
      expect(completions.map((row) => [row.resourceId, row._count]).sort()).toEqual(payments.map((p) => [p.id, 1]).sort());
      const counted = await setup.db.ledgerPayment.groupBy({ by: ["paymentId"], where: { account: settlementWallet, paymentId: { not: null } }, _count: true });
      expect(counted.map((row) => [row.paymentId, row._count]).sort()).toEqual(payments.map((p) => [p.id, 1]).sort());
    } finally {
      await first.stop().catch(() => {});
      await setup.close();
      await database.drop();
    }
  });
});
