// WORKERS > 1, as an operator runs it: the real service (src/main.ts) in a child process, its workers
// forked by the primary. A key's rate limit and an Idempotency-Key hold across the workers, the
// network is watched (its ledger-wide payment stream opened) by one worker only, a worker that dies is replaced, SIGTERM stops
// them all, no worker outlives the primary, and a worker that cannot start stops the service.
import { request as httpRequest } from "node:http";
import { createServer as createNetServer } from "node:net";
import { Networks } from "@stellar/stellar-sdk";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { isAlive, workerPids } from "../bench/lib/processes.ts";
import { prepareMerchant, serviceEnv, startServiceProcess } from "../bench/lib/service.ts";
import { SimulatedNetwork } from "../src/ledger/simulated/index.ts";
import { serve } from "../src/server.ts";
import { systemClock } from "../src/shared/clock.ts";
import { fundedPayer, payOp, signedTransaction, submit, waitFor, walletOn } from "./support/ledger.ts";
import { fileCleanups } from "./support/file-cleanups.ts";
import { dialect, freshDatabaseUrl } from "./support/test-app.ts";

const cleanups = fileCleanups();

// Each start is three processes loading the service: seconds of CPU, more while other files run.
vi.setConfig({ testTimeout: 120_000 });



/** One request on a connection of its own: the primary hands each new connection to the next worker. */
function requestOnNewConnection(
  url: string,
  options: { method?: string; headers: Record<string, string>; body?: string },
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? "GET", agent: false, headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString(), headers: res.headers }));
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

const getOnNewConnection = (url: string, key: string) => requestOnNewConnection(url, { headers: { authorization: `Bearer ${key}` } });

async function startCluster(extraEnv: Record<string, string> = {}) {
  const database = await freshDatabaseUrl();
  cleanups.push(() => database.drop());
  const env = serviceEnv(database.url, { WORKERS: "2", LOG_LEVEL: "silent", ...extraEnv });
  const merchant = await prepareMerchant(env);
  cleanups.push(() => merchant.database.close());
  const service = await startServiceProcess(env);
  cleanups.push(() => service.stop());
  return { service, env, ...merchant };
}

// The tests that only send requests share one cluster (a start is three processes loading the
// service): live keys limited to 5/s, sandbox keys not limited. The last one ends it.
describe("one cluster", () => {
  let cluster: Awaited<ReturnType<typeof startCluster>>;
  beforeAll(async () => {
    cluster = await startCluster({ RATE_LIMIT_LIVE: "5" });
  });

  it("shares each key's rate limit across the workers", async () => {
    const { service, org } = cluster;
    expect(workerPids(service.pid)).toHaveLength(2);

    // At once, each on a connection of its own: the primary hands them to the two workers in turn.
    const started = Date.now();
    const answers = await Promise.all(Array.from({ length: 20 }, () => getOnNewConnection(`${service.url}/api/v1/payments`, org.live_api_key)));
    const refilled = Math.ceil(((Date.now() - started) / 1000) * 5);

    // One bucket of 5 for the key, whichever worker answered; a bucket per worker would let 10 through.
    const allowed = answers.filter((a) => a.status === 200).length;
    expect(allowed).toBeGreaterThanOrEqual(5);
    expect(allowed).toBeLessThanOrEqual(5 + refilled);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(20 - allowed);
  });

  it("answers /metrics for the whole instance, whichever worker the scrape reaches", async () => {
    const { service } = cluster;
    // The 20 requests above went to both workers in turn (those refused by the rate limit before
    // routing count under /api/v1/*); each scrape, on a new connection, reaches either worker.
    for (let i = 0; i < 2; i++) {
      const scrape = await requestOnNewConnection(`${service.url}/metrics`, { headers: {} });
      expect(scrape.status).toBe(200);
      const count = (route: string, status: string) =>
        Number(new RegExp(`^stellar_pay_http_request_duration_seconds_count\\{method="GET",route="${route}",status="${status}"\\} (\\d+)$`, "m").exec(scrape.body)?.[1] ?? 0);
      expect(count("/api/v1/payments", "200") + count("/api/v1/\\*", "429")).toBe(20);
    }
  });

  it("creates one payment for concurrent requests with one Idempotency-Key, whichever workers answer", async () => {
    const { service, org, database } = cluster;
    const create = () =>
      requestOnNewConnection(`${service.url}/api/v1/payments`, {
        method: "POST",
        headers: { authorization: `Bearer ${org.sandbox_api_key}`, "content-type": "application/json", "idempotency-key": "order-42" },
        body: JSON.stringify({ amount: "3.5" }),
      });

    const answers = await Promise.all(Array.from({ length: 20 }, create));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201));
    expect(new Set(answers.map((a) => a.body)).size).toBe(1);
    expect(answers.filter((a) => a.headers["idempotent-replayed"] !== "true")).toHaveLength(1);
    expect(await database.db.payment.count()).toBe(1);
  });

  it("serves GraphQL over SSE in distinct connections mode, and refuses a single connection reservation", async () => {
    const { service, org } = cluster;
    // A reserved stream would live in one worker, and the client's next request may reach the other.
    const reserve = await fetch(`${service.url}/graphql/stream`, { method: "PUT", headers: { authorization: `Bearer ${org.sandbox_api_key}` } });
    expect(reserve.status).toBe(405);
    expect(await reserve.json()).toEqual({ error: expect.stringContaining("WORKERS=1") });

    const query = await fetch(`${service.url}/graphql/stream`, {
      method: "POST",
      headers: { authorization: `Bearer ${org.sandbox_api_key}`, "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ query: "{ payments(first: 1) { edges { node { id } } } }" }),
    });
    expect(query.status).toBe(200);
    expect(await query.text()).toContain('"data":{"payments":{"edges":[');
  });

  it("replaces a worker that dies, and SIGTERM stops every worker", async () => {
    const { service, org } = cluster;
    const [victim, survivor] = workerPids(service.pid);
    process.kill(victim!, "SIGKILL");

    const replaced = await waitFor(async () => workerPids(service.pid), (pids) => pids.length === 2 && !pids.includes(victim!), 20_000);
    expect(replaced).toContain(survivor);
    // The new worker listens: every connection is answered, whichever worker it reaches.
    await waitFor(
      async () => Promise.all(Array.from({ length: 6 }, () => getOnNewConnection(`${service.url}/api/v1/payments`, org.sandbox_api_key).catch(() => null))),
      (answers) => answers.every((a) => a?.status === 200),
      20_000,
    );

    await service.stop();
    expect(isAlive(service.pid)).toBe(false);
    await waitFor(async () => replaced.filter(isAlive), (alive) => alive.length === 0);
  });
});

// How the processes end is Node's cluster and the supervisor's, whatever the database: on SQLite only
// (each start is three processes loading the service; the one that cannot start, many).
if (dialect === "sqlite") {
  it("leaves no worker behind when the primary is killed", async () => {
    const { service } = await startCluster();
    const workers = workerPids(service.pid);
    expect(workers).toHaveLength(2);
    process.kill(service.pid, "SIGKILL");
    // Node's cluster ends a worker whose primary is gone; none keeps serving the port on its own.
    await waitFor(async () => workers.filter(isAlive), (alive) => alive.length === 0);
  });

  it("stops with exit code 1 when its workers cannot start", async () => {
    const taken = createNetServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise((done) => taken.close(done)));
    const database = await freshDatabaseUrl();
    cleanups.push(() => database.drop());
    const env = serviceEnv(database.url, { WORKERS: "2", LOG_LEVEL: "silent", PORT: String((taken.address() as { port: number }).port) });

    const error = await startServiceProcess(env).then(
      () => null,
      (e: Error) => e,
    );
    expect(error?.message).toMatch(/exited with 1/);
    expect(error?.message).toContain("EADDRINUSE");
  });
}

it("watches the network from one worker only, and completes its payments", async () => {
  // A Stellar test network of our own, reached over HTTP as Horizon would be; it counts the payment
  // streams opened: the ledger-wide one, and any of one account.
  const network = new SimulatedNetwork({ networkPassphrase: Networks.TESTNET, basePath: "/net", ledgerCloseMs: 100, clock: systemClock });
  const streamsOpened = new Map<string, number>();
  const horizon = await serve(
    (request) => {
      const path = new URL(request.url).pathname;
      const stream = /^\/net\/horizon(?:\/accounts\/(G[A-Z0-9]{55}))?\/payments$/.exec(path);
      if (stream && (request.headers.get("accept") ?? "").includes("text/event-stream")) {
        const watched = stream[1] ?? "network";
        streamsOpened.set(watched, (streamsOpened.get(watched) ?? 0) + 1);
      }
      return network.fetch(request);
    },
    { port: 0, host: "127.0.0.1" },
  );
  network.start();
  cleanups.push(() => horizon.close(), () => network.stop());

  const { service, org, wallet } = await startCluster({ HORIZON_TESTNET_URL: `${horizon.url}/net/horizon` });
  await network.fund(wallet);
  const payments: { id: string; payment_instructions: { muxed_destination: string } }[] = [];
  for (let i = 0; i < 4; i++) {
    const response = await fetch(`${service.url}/api/v1/payments`, {
      method: "POST",
      headers: { authorization: `Bearer ${org.sandbox_api_key}`, "content-type": "application/json" },
      body: JSON.stringify({ amount: "2" }),
    });
    expect(response.status).toBe(201);
    payments.push((await response.json()) as (typeof payments)[number]);
  }
  // Both workers try the network's lock every second: give each of them time to try twice.
  await new Promise((resolve) => setTimeout(resolve, 2500));
  expect(Object.fromEntries(streamsOpened)).toEqual({ network: 1 });

  const payerWallet = walletOn(network, `${horizon.url}/net/horizon`);
  const payer = await fundedPayer(payerWallet);
  for (const payment of payments) {
    const sent = await submit(payerWallet, await signedTransaction(payerWallet, payer, [payOp(payment.payment_instructions.muxed_destination, "2")]));
    expect(sent.hash).toBeTruthy();
  }

  const statuses = await waitFor(
    () =>
      Promise.all(
        payments.map(async (p) => {
          const response = await fetch(`${service.url}/api/v1/payments/${p.id}`, { headers: { authorization: `Bearer ${org.sandbox_api_key}` } });
          return ((await response.json()) as { status: string }).status;
        }),
      ),
    (all) => all.every((s) => s === "completed"),
    20_000,
  );
  expect(statuses).toEqual(["completed", "completed", "completed", "completed"]);
  expect(Object.fromEntries(streamsOpened)).toEqual({ network: 1 });
});
