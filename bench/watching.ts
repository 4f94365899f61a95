// `npm run bench:watching`: the ledger watcher with 10,000 watched wallets (one open payment on each
// of 10,000 settlement wallets), through the real path: a simulated network served over HTTP as
// Horizon would be (its ledger-wide SSE payment stream), the service in this process (SQLite, or
// PostgreSQL with BENCH_DATABASE_URL), real signed transactions. Ledgers close by hand, so the clock
// starts exactly at a close. Prints:
//   start:   from the watcher's start to all 10,000 wallets watched and the network's stream open
//   memory:  heap held per watched wallet (streamer running vs stopped, after a full GC each)
//   idle:    CPU per wallet while ledgers with nothing for us close every second (streamer running vs
//            stopped, same run), and what one safety re-read of the set costs (every 60 s)
//   burst:   10,000 payments landing in one ledger (100 payers x 100 operations): completions/s
//   latency: one payment per ledger, BENCH_WATCHING_SAMPLES times (default 200): close -> completed
//            (the payment.completed event's created_at), p50 / p99
// BENCH_LEDGER_API=rpc watches through the network's Stellar RPC (getEvents polled every
// STELLAR_RPC_POLL_MS, default 1,000 ms) instead of Horizon's stream, and also prints the RPC
// requests per minute at idle (its aim: independent of the number of wallets).
// BENCH_WATCHING_WALLETS changes the 10,000. Baseline (per-wallet streams, before #16): the issue's
// figures, 17-46 s to watch 1,000 wallets, 60-150 KB per wallet, 12% of a core idle.
import { randomBytes } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import inspector from "node:inspector/promises";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Account, Asset, Keypair, Networks, Operation, TimeoutInfinite, TransactionBuilder } from "@stellar/stellar-sdk";
import pg from "pg";
import { SimulatedNetwork } from "../src/ledger/simulated/index.ts";
import { createOrganization, setSettlementWallet } from "../src/modules/organizations/organizations.service.ts";
import { createPayment } from "../src/modules/payments/payments.service.ts";
import { serve } from "../src/server.ts";
import { systemClock } from "../src/shared/clock.ts";
import { inProcessApp } from "./lib/in-process.ts";
import { percentile } from "./lib/measure.ts";
import { paymentTx } from "./lib/payment-tx.ts";

const loadAtStart = loadavg().map((l) => l.toFixed(1)).join(" ");
const WALLETS = Number(process.env.BENCH_WATCHING_WALLETS ?? 10_000);
const SAMPLES = Number(process.env.BENCH_WATCHING_SAMPLES ?? 200);
const OPS_PER_TX = 100;
const IDLE_MS = 10_000;

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc (npm run bench:watching does)");

// ---- the database
const postgres = process.env.BENCH_DATABASE_URL;
const schema = `bench_${randomBytes(4).toString("hex")}`;
const sqlitePath = join(tmpdir(), `bench-watching-${randomBytes(4).toString("hex")}.db`);
let databaseUrl = `file:${sqlitePath}`;
if (postgres) {
  const url = new URL(postgres);
  url.searchParams.set("schema", schema);
  databaseUrl = url.toString();
}

// ---- the network, on its own server as Horizon (or Stellar RPC) would be
const api = process.env.BENCH_LEDGER_API === "rpc" ? "Stellar RPC" : "Horizon";
const network = new SimulatedNetwork({ networkPassphrase: Networks.TESTNET, basePath: "", ledgerCloseMs: 24 * 3600_000, clock: systemClock });
/** calls to the network's RPC endpoint so far */
let rpcRequests = 0;
const horizon = await serve(
  (request) => {
    if (new URL(request.url).pathname === "/rpc") rpcRequests++;
    return network.fetch(request);
  },
  { port: 0, host: "127.0.0.1" },
);
network.start();

const { database, deps, app } = await inProcessApp({
  DATABASE_URL: databaseUrl,
  LEDGER: "horizon",
  ...(api === "Stellar RPC" ? { STELLAR_RPC_TESTNET_URL: `${horizon.url}/rpc` } : { HORIZON_TESTNET_URL: `${horizon.url}/horizon` }),
  LOG_LEVEL: "silent",
});
const server = await serve(app, { port: 0, host: "127.0.0.1" });
const streamer = app.ledger.streamer;

async function funded(addresses: string[]) {
  const all = addresses.map((address) => network.fund(address));
  await network.closeLedger();
  await Promise.all(all);
}

// ---- 10,000 wallets, one open payment each: created as the API would, then moved to a wallet of its own
const org = await createOrganization(deps, { name: "Bench" });
await setSettlementWallet(deps, { organizationId: org.organization_id, environment: "sandbox", address: Keypair.random().publicKey() });
const ctx = { ...deps, scope: { organizationId: org.organization_id, environment: "sandbox" as const, principal: { kind: "key" as const, id: "bench", role: "admin" as const } } };
const wallets = Array.from({ length: WALLETS }, () => Keypair.random().publicKey());
const seedStarted = performance.now();
const open: { id: string; memoId: string; settlementAddress: string }[] = [];
for (let i = 0; i < WALLETS; i += 500) {
  const chunk = wallets.slice(i, i + 500);
  const created = [];
  for (const address of chunk) created.push({ payment: await createPayment(ctx, { amount: 10_000_000n }), address });
  await database.db.$transaction(created.map(({ payment, address }) => database.db.payment.update({ where: { id: payment.id }, data: { settlementAddress: address } })));
  for (const { payment, address } of created) open.push({ id: payment.id, memoId: payment.memoId, settlementAddress: address });
}
await funded(wallets);
const payers = Array.from({ length: Math.ceil(WALLETS / OPS_PER_TX) }, () => Keypair.random());
await funded(payers.map((p) => p.publicKey()));
console.log(`seeded ${WALLETS} wallets with an open payment each in ${Math.round(performance.now() - seedStarted)} ms (${postgres ? "PostgreSQL" : "SQLite"})`);

/**
 * BENCH_WATCHING_PROFILE=file.cpuprofile: a CPU profile of the burst alone (the seeding would drown
 * it in a whole-run --cpu-prof), for Chrome DevTools or a script.
 */
async function startProfile() {
  const file = process.env.BENCH_WATCHING_PROFILE;
  if (!file) return null;
  const session = new inspector.Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 200 });
  await session.post("Profiler.start");
  return {
    async stop() {
      const { profile } = await session.post("Profiler.stop");
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
      console.log(`CPU profile of the burst written to ${file}`);
    },
  };
}

const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

// ---- start: until every wallet is watched and the network's stream is open
const heapBefore = heap();
const startedAt = performance.now();
await app.start({ url: server.url });
for (;;) {
  if (streamer.watching().includes(Networks.TESTNET) && wallets.every((w) => streamer.watches(Networks.TESTNET, w))) break;
  await new Promise((resolve) => setTimeout(resolve, 5));
}
const startMs = performance.now() - startedAt;
/**
 * Until the stream has processed ledger `sequence`. A ledger's first batch already counts as
 * processing it, so "every record of ledger n" is only sure once ledger n + 1 is processed.
 */
async function processedThrough(sequence: number) {
  while (!streamer.progress().some((p) => p.processedLedger !== null && p.processedLedger >= sequence)) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
// A new stream starts at the network's beginning here (its history is minutes old): the heap is
// read once it has reached the newest ledger (the idle figures wait for the ledger after it too).
await processedThrough(network.latestLedger.sequence - 1);
const heapWatching = heap();

const lastSeq = async () => (await database.db.event.aggregate({ _max: { seq: true } }))._max.seq ?? 0;

/**
 * When the last of `count` payment.completed events written after outbox position `afterSeq` was
 * created, once there are that many. Counted while waiting: reading 10,000 rows every 50 ms would
 * weigh on the burst it measures (the same process runs the service).
 */
async function completedAt(afterSeq: number, count: number, timeoutMs = 120_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  const where = { type: "payment.completed", seq: { gt: afterSeq } };
  for (;;) {
    const seen = await database.db.event.count({ where });
    if (seen >= count) return (await database.db.event.aggregate({ where, _max: { createdAt: true } }))._max.createdAt!.getTime();
    if (Date.now() > deadline) throw new Error(`only ${seen}/${count} completed`);
    // Coarse polling: the figures come from the events' own timestamps, not from when they are seen.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// ---- idle: ledgers with nothing for us (other accounts paying each other) close every second
const strangers = [Keypair.random(), Keypair.random()];
await funded(strangers.map((s) => s.publicKey()));
// Caught up for good: the ledger that funded them is processed, so every record before it is too.
await processedThrough(network.latestLedger.sequence);
async function idleCpuMs(): Promise<number> {
  const started = process.cpuUsage();
  const until = Date.now() + IDLE_MS;
  while (Date.now() < until) {
    const tx = new TransactionBuilder(new Account(strangers[0]!.publicKey(), network.sequence(strangers[0]!.publicKey())!), { fee: "100", networkPassphrase: Networks.TESTNET })
      .addOperation(Operation.payment({ destination: strangers[1]!.publicKey(), asset: Asset.native(), amount: "1" }))
      .setTimeout(TimeoutInfinite)
      .build();
    tx.sign(strangers[0]!);
    const landed = network.submitTransaction(tx);
    await network.closeLedger();
    await landed;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
}
const rpcBeforeIdle = rpcRequests;
const idleWatching = await idleCpuMs();
const rpcPerMinute = ((rpcRequests - rpcBeforeIdle) * 60_000) / IDLE_MS;
const rereadStarted = process.cpuUsage();
await streamer.refresh();
const rereadUsage = process.cpuUsage(rereadStarted);
const rereadCpuMs = (rereadUsage.user + rereadUsage.system) / 1000;
await streamer.stop();
const heapStopped = heap();
const idleStopped = await idleCpuMs();
streamer.start();
for (;;) {
  if (streamer.watching().includes(Networks.TESTNET) && wallets.every((w) => streamer.watches(Networks.TESTNET, w))) break;
  await new Promise((resolve) => setTimeout(resolve, 5));
}

// ---- latency: one payment per ledger, on wallets spread over the set
const latencies: number[] = [];
for (let i = 0; i < SAMPLES + 10; i++) {
  const payment = open[(i * 7919) % open.length]!;
  const before = await lastSeq();
  const landed = network.submitTransaction(paymentTx(network, payers[0]!, [payment]));
  await network.closeLedger();
  const closedAt = Date.now();
  await landed;
  const completed = await completedAt(before, 1);
  if (i >= 10) latencies.push(completed - closedAt); // the first ten warm the JIT up
}
latencies.sort((a, b) => a - b);

// ---- burst: the other payments, all in one ledger
const paidAlready = new Set(Array.from({ length: SAMPLES + 10 }, (_, i) => (i * 7919) % open.length));
const rest = open.filter((_, i) => !paidAlready.has(i));
const beforeBurst = await lastSeq();
const submissions = [];
for (let i = 0; i * OPS_PER_TX < rest.length; i++) submissions.push(network.submitTransaction(paymentTx(network, payers[i]!, rest.slice(i * OPS_PER_TX, (i + 1) * OPS_PER_TX))));
await network.closeLedger();
const burstClosedAt = Date.now();
const profile = await startProfile();
for (const result of await Promise.all(submissions)) {
  if (result.status !== "included" || !result.successful) throw new Error(`burst transaction failed: ${JSON.stringify(result.resultCodes)}`);
}
// None left with a few wallets (BENCH_WATCHING_WALLETS=10, for the idle request rate): no burst.
const burstMs = rest.length > 0 ? (await completedAt(beforeBurst, rest.length)) - burstClosedAt : 0;
await profile?.stop();

const kb = (bytes: number) => (bytes / 1024).toFixed(2);
const load = () => loadavg().map((l) => l.toFixed(1)).join(" ");
console.log(`watching ${WALLETS} wallets on one network through ${api} (${postgres ? "PostgreSQL" : "SQLite"}), against the issue's per-wallet baseline`);
console.log(`  ${new Date().toISOString()}, ${cpus().length} cores, load average (1, 5, 15 min) ${load()} at the end, ${loadAtStart} at the start`);
if (api === "Stellar RPC") {
  console.log(`  RPC requests at idle: ${Math.round(rpcPerMinute)} per minute, getEvents polled every ${deps.config.rpcPollMs} ms (STELLAR_RPC_POLL_MS)   (aim: independent of the number of wallets)`);
}
console.log(`  start -> all watched, stream open: ${Math.round(startMs)} ms   (aim: < 5,000 ms; baseline 17-46 s for 1,000 wallets)`);
console.log(`  heap per watched wallet: ${kb((heapWatching - heapBefore) / WALLETS)} KB from start, ${kb((heapWatching - heapStopped) / WALLETS)} KB running vs stopped   (aim: < 10 KB; baseline 60-150 KB)`);
console.log(
  `  idle CPU over ${IDLE_MS / 1000} s (a ledger a second, none for us): ${Math.round(idleWatching)} ms watching vs ${Math.round(idleStopped)} ms stopped -> ${(((idleWatching - idleStopped) / IDLE_MS) * 100).toFixed(2)}% of a core, ${(((idleWatching - idleStopped) * 1000) / IDLE_MS / WALLETS).toFixed(3)} µs/s per wallet`,
);
console.log(`  safety re-read of the whole set: ${Math.round(rereadCpuMs)} ms CPU once a minute -> ${((rereadCpuMs / 60_000) * 100).toFixed(2)}% of a core   (baseline: every wallet re-read every second, 12% of a core)`);
console.log(`  burst: ${rest.length} payments in one ledger, all completed ${burstMs} ms after the close -> ${Math.round((rest.length / burstMs) * 1000)} completions/s   (aim: >= 2,000/s)`);
console.log(`  close -> completed, one payment per ledger (${SAMPLES} samples): p50 ${percentile(latencies, 50)} ms   p99 ${percentile(latencies, 99)} ms   max ${latencies.at(-1)} ms   (aim: p99 < 50 ms${api === "Stellar RPC" ? ` + the ${deps.config.rpcPollMs} ms polling interval` : ""})`);

await server.close();
await app.stop();
await database.close();
await network.stop();
await horizon.close();
if (postgres) {
  const client = new pg.Client({ connectionString: postgres });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
} else {
  for (const suffix of ["", "-wal", "-shm"]) rmSync(sqlitePath + suffix, { force: true });
}
process.exit(0);
