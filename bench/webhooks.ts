// `npx tsx bench/webhooks.ts`: webhook delivery figures, in-process, on SQLite (or BENCH_DATABASE_URL).
// Each run starts from empty tables: a new SQLite file, or on PostgreSQL a schema of its own named
// after the URL's (schema_<random>), dropped at the end; figures do not drift with leftovers of
// earlier runs.
// - throughput: N outbox events already committed, one endpoint subscribed to all; deliveries/s from
//   starting the dispatcher until a local node:http receiver answering 200 has received all of them;
// - latency: payments created one by one over HTTP (POST /payments to the app served on 127.0.0.1),
//   dispatcher running; from the event's created_at (stamped inside the committing transaction) to
//   the receiver getting the first attempt; p50 / p99; and how many cycles the dispatcher ran.
//   Over HTTP, not app.fetch: on SQLite an in-process loop of app.fetch calls never yields to the
//   event loop's I/O phase, so neither the dispatcher's requests nor the receiver could move until
//   the loop ended, which measured the loop rather than the dispatcher;
// - next to both, a bare HMAC-SHA256 rate, the full signing (both schemes' headers) rate, and the
//   rate of opening a stored (AES-256-GCM encrypted) secret, which every attempt does.
// - encrypted vs plain secret: alternating rounds of BENCH_ROUND_EVENTS (default 1000) events drained by
//   runOnce() cycles, the endpoint's secret stored encrypted or (as before encryption) in plain
//   text: what decrypting per attempt costs the dispatcher, measured in one run on the same load.
// The receiver is on 127.0.0.1, a private address: the run allows private targets.
// BENCH_EVENTS (default 5000) and BENCH_PAYMENTS (default 1000) size the runs.
import { createHmac, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { Keypair } from "@stellar/stellar-sdk";
import pg from "pg";
import { postgresSchema } from "../src/db/client.ts";
import { inProcessApp } from "./lib/in-process.ts";
import { recordEvent } from "../src/modules/events/events.service.ts";
import { createOrganization, setSettlementWallet } from "../src/modules/organizations/organizations.service.ts";
import { serve } from "../src/server.ts";
import { WebhookDispatcher } from "../src/webhooks/dispatcher.ts";
import { secretBoxOf } from "../src/webhooks/secret-box.ts";
import { percentile } from "./lib/measure.ts";
import { generateSecret, signatureHeaders } from "../src/webhooks/signing.ts";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 5000);
const PAYMENTS = Number(process.env.BENCH_PAYMENTS ?? 1000);
const ROUND_EVENTS = Number(process.env.BENCH_ROUND_EVENTS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);

/** Operations per second of `fn` over about `ms` milliseconds. */
function rate(fn: () => void, ms = 1000): number {
  let count = 0;
  const start = performance.now();
  while (performance.now() - start < ms) {
    for (let i = 0; i < 100; i++) fn();
    count += 100;
  }
  return count / ((performance.now() - start) / 1000);
}

async function startReceiver() {
  const arrivals = new Map<string, number>();
  let onArrival: () => void = () => {};
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const eventId = /^\{"id":"([^"]+)"/.exec(body)![1]!;
      // Date.now(): the same clock as the event's created_at.
      if (!arrivals.has(eventId)) arrivals.set(eventId, Date.now());
      res.writeHead(200).end("ok");
      onArrival();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
    until(count: number) {
      return new Promise<void>((resolve) => {
        onArrival = () => arrivals.size >= count && resolve();
        onArrival();
      });
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** The database of this run, and how to remove it. */
function benchDatabase(): { url: string; drop(): Promise<void> } {
  const given = process.env.BENCH_DATABASE_URL;
  if (!given) {
    const dir = mkdtempSync(join(tmpdir(), "stellar-pay-bench-webhooks-"));
    return { url: `file:${join(dir, "bench.db")}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const url = new URL(given);
  const schema = `${postgresSchema(given)}_${randomBytes(4).toString("hex")}`;
  url.searchParams.set("schema", schema);
  return {
    url: url.toString(),
    async drop() {
      const admin = new URL(given);
      admin.search = "";
      const client = new pg.Client({ connectionString: admin.toString() });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
}

async function main() {
  const bench = benchDatabase();
  const { config, database, deps, app } = await inProcessApp({
    DATABASE_URL: bench.url,
    RATE_LIMIT_LIVE: "0",
    RATE_LIMIT_SANDBOX: "0",
    LOG_LEVEL: "warn",
    WEBHOOK_ALLOW_PRIVATE: "true",
    WEBHOOK_SECRET_KEYS: randomBytes(32).toString("base64"),
  });
  const receiver = await startReceiver();

  const org = await createOrganization(deps, { name: "Bench Merchant" });
  await setSettlementWallet(deps, { organizationId: org.organization_id, environment: "sandbox", address: Keypair.random().publicKey() });
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await app.fetch(
      new Request(`http://bench.local/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${org.sandbox_api_key}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return response.json() as Promise<any>;
  };
  const endpoint = await call("POST", "/webhook-endpoints", { url: receiver.url, enabled_events: ["*"] });
  const payment = await call("POST", "/payments", { amount: "12.5", pricing_currency: "USD", pricing_amount: "3.10" });
  const sampleBody = JSON.stringify({ id: "evt_x", event: "payment.created", created_at: new Date().toISOString(), data: payment });

  // Signing, measured in the same run.
  const secret = generateSecret();
  const hmacPerSecond = rate(() => createHmac("sha256", secret).update(`1700000000.${sampleBody}`).digest("hex"));
  const signPerSecond = rate(() =>
    signatureHeaders({ deliveryId: "whd_x", eventType: "payment.created", body: sampleBody, secrets: [secret], timestamp: 1700000000 }),
  );
  const sealed = secretBoxOf(config).seal(secret);
  const openPerSecond = rate(() => secretBoxOf(config).open(sealed));

  // Throughput: a backlog of committed events, drained by one dispatcher.
  const scope = { organizationId: org.organization_id, environment: "sandbox" };
  for (let done = 0; done < EVENTS; done += 500) {
    await database.db.$transaction(async (tx) => {
      for (let i = done; i < Math.min(EVENTS, done + 500); i++) {
        await recordEvent(tx, deps, scope, { type: "payment.completed", resourceId: payment.id, data: payment });
      }
    });
  }
  // Everything not yet fanned out is queued: the first payment's payment.created too.
  const backlog = await database.db.event.count({ where: { fannedOutAt: null } });
  const started = performance.now();
  app.webhooks.start();
  await receiver.until(backlog);
  const throughput = backlog / ((performance.now() - started) / 1000);

  // Encrypted vs plain secret, alternating rounds.
  const stored = (await database.db.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } })).secret;
  const roundRates: Record<"encrypted" | "plain", number[]> = { encrypted: [], plain: [] };
  const roundWorker = new WebhookDispatcher(deps);
  for (let round = 0; round < ROUNDS; round++) {
    const variant = round % 2 === 0 ? "encrypted" : "plain";
    await database.db.webhookEndpoint.update({ where: { id: endpoint.id }, data: { secret: variant === "plain" ? endpoint.secret : stored } });
    await database.db.$transaction(async (tx) => {
      for (let i = 0; i < ROUND_EVENTS; i++) {
        await recordEvent(tx, deps, scope, { type: "payment.completed", resourceId: payment.id, data: payment });
      }
    });
    const target = receiver.arrivals.size + ROUND_EVENTS;
    const roundStarted = performance.now();
    while (receiver.arrivals.size < target) await roundWorker.runOnce();
    roundRates[variant].push(ROUND_EVENTS / ((performance.now() - roundStarted) / 1000));
  }
  await database.db.webhookEndpoint.update({ where: { id: endpoint.id }, data: { secret: stored } });
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const backlogAll = backlog + ROUNDS * ROUND_EVENTS;

  // Latency: one payment at a time through the API, dispatcher running (woken by each write).
  const server = await serve({ listener: app.listener }, { port: 0, host: "127.0.0.1" });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const post = (path: string, body: unknown) =>
    new Promise<void>((resolve, reject) => {
      const req = httpRequest(`${server.url}/api/v1${path}`, {
        method: "POST",
        agent,
        headers: { authorization: `Bearer ${org.sandbox_api_key}`, "content-type": "application/json" },
      });
      req.on("error", reject);
      req.on("response", (res) => {
        res.resume();
        res.on("end", () => (res.statusCode === 201 ? resolve() : reject(new Error(`POST ${path}: ${res.statusCode}`))));
      });
      req.end(JSON.stringify(body));
    });
  // Counted from outside: the cycle is the dispatcher's own business.
  let cycles = 0;
  const dispatcher = app.webhooks as unknown as { cycle(capacity: number): Promise<unknown> };
  const cycle = dispatcher.cycle.bind(dispatcher);
  dispatcher.cycle = (capacity) => {
    cycles++;
    return cycle(capacity);
  };
  const latencies: number[] = [];
  const streamStarted = performance.now();
  for (let i = 0; i < PAYMENTS; i++) {
    await post("/payments", { amount: "1" });
  }
  const streamSeconds = (performance.now() - streamStarted) / 1000;
  const streamCycles = cycles;
  await receiver.until(backlogAll + PAYMENTS);
  const events = await database.db.event.findMany({
    where: { type: "payment.created" },
    select: { id: true, createdAt: true },
    orderBy: { seq: "asc" },
  });
  for (const event of events.slice(-PAYMENTS)) {
    latencies.push(receiver.arrivals.get(event.id)! - event.createdAt.getTime());
  }
  latencies.sort((a, b) => a - b);

  await app.stop();
  agent.destroy();
  await server.close();
  await receiver.close();
  await database.close();
  await bench.drop();

  const n = (x: number) => Math.round(x).toLocaleString("en-US");
  console.log(`webhooks bench: ${config.dialect}, ${cpus().length} CPU(s) (${cpus()[0]?.model ?? "unknown"}), Node ${process.version}`);
  console.log(`| figure | value |`);
  console.log(`|---|---|`);
  console.log(`| deliveries/s to a local receiver answering 200 (${EVENTS} queued events) | ${n(throughput)} |`);
  console.log(`| commit-to-first-attempt latency p50 (${PAYMENTS} payments via POST /payments) | ${percentile(latencies, 50)} ms |`);
  console.log(`| commit-to-first-attempt latency p99 | ${percentile(latencies, 99)} ms |`);
  console.log(`| POST /payments per second during that run / dispatcher cycles per second | ${n(PAYMENTS / streamSeconds)} / ${n(streamCycles / streamSeconds)} |`);
  console.log(`| bare HMAC-SHA256 hex of the body, per second | ${n(hmacPerSecond)} |`);
  console.log(`| full signing (Service-Signature + Standard Webhooks headers), per second | ${n(signPerSecond)} |`);
  console.log(`| opening a stored secret (AES-256-GCM decryption), per second | ${n(openPerSecond)} |`);
  console.log(
    `| deliveries/s by runOnce cycles, secret encrypted / plain (median of ${ROUNDS / 2} alternating rounds of ${ROUND_EVENTS}) | ` +
      `${n(median(roundRates.encrypted))} / ${n(median(roundRates.plain))} (ratio ${(median(roundRates.encrypted) / median(roundRates.plain)).toFixed(2)}) |`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
