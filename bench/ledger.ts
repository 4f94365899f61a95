// `tsx bench/ledger.ts`: from a transaction landing in a simulated ledger to its payment being
// `completed` with payment.completed in the outbox, through the real path (Horizon SSE stream of
// the built-in simulated network over HTTP -> verifier -> one database transaction), on SQLite.
//   latency:    one payment per ledger, BENCH_LEDGER_SAMPLES times (default 200): p50 / p99 of
//               (event created_at - moment the ledger closed)
//   throughput: 1,000 payments in one ledger (1,000 payers, one transaction each): completed/s
// Ledgers are closed by hand (closeLedger) so the clock starts exactly at the close.
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Keypair, Networks } from "@stellar/stellar-sdk";
import type { SimulatedNetwork } from "../src/ledger/simulated/index.ts";
import { createOrganization, setSettlementWallet } from "../src/modules/organizations/organizations.service.ts";
import { createPayment } from "../src/modules/payments/payments.service.ts";
import { serve } from "../src/server.ts";
import { inProcessApp } from "./lib/in-process.ts";
import { percentile } from "./lib/measure.ts";
import { paymentTx } from "./lib/payment-tx.ts";

const SAMPLES = Number(process.env.BENCH_LEDGER_SAMPLES ?? 200);
const BURST = 1000;

const path = join(tmpdir(), `bench-ledger-${randomBytes(4).toString("hex")}.db`);
const { database, deps, app } = await inProcessApp({
  DATABASE_URL: `file:${path}`,
  LEDGER: "simulated",
  // Ledgers close only when the bench says so.
  SIM_LEDGER_CLOSE_MS: String(24 * 3600_000),
  LOG_LEVEL: "silent",
});
const server = await serve(app, { port: 0, host: "127.0.0.1" });
await app.start({ url: server.url });
const network = app.ledger.simulatedNetwork(Networks.TESTNET)!;

async function fund(net: SimulatedNetwork, address: string) {
  const funded = net.fund(address);
  await net.closeLedger();
  await funded;
}

const wallet = Keypair.random();
await fund(network, wallet.publicKey());
const org = await createOrganization(deps, { name: "Bench" });
await setSettlementWallet(deps, { organizationId: org.organization_id, environment: "sandbox", address: wallet.publicKey() });
const ctx = { ...deps, scope: { organizationId: org.organization_id, environment: "sandbox" as const, principal: { kind: "key" as const, id: "bench", role: "admin" as const } } };
const newPayment = () => createPayment(ctx, { amount: 10_000_000n });

// A payment that stays pending keeps the wallet's stream open, as real traffic would.
await newPayment();
await app.ledger.streamer.refresh();

const payers = Array.from({ length: BURST }, () => Keypair.random());
const funded = payers.map((payer) => network.fund(payer.publicKey()));
await network.closeLedger();
await Promise.all(funded);

/** The payment.completed events written after outbox position `afterSeq`, once there are `count`. */
async function waitForCompleted(afterSeq: number, count: number) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const events = await database.db.event.findMany({
      where: { type: "payment.completed", seq: { gt: afterSeq } },
      select: { createdAt: true },
    });
    if (events.length >= count) return events;
    if (Date.now() > deadline) throw new Error(`only ${events.length}/${count} completed`);
    // Coarse polling: the figures come from the events' own timestamps, not from when they are seen.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const lastSeq = async () => (await database.db.event.aggregate({ _max: { seq: true } }))._max.seq ?? 0;


// Latency: one payment per ledger.
const latencies: number[] = [];
for (let i = 0; i < SAMPLES + 10; i++) {
  const payment = await newPayment();
  const before = await lastSeq();
  const landed = network.submitTransaction(paymentTx(network, payers[0]!, [payment]));
  await network.closeLedger();
  const closedAt = Date.now();
  await landed;
  const [event] = await waitForCompleted(before, 1);
  if (i >= 10) latencies.push(event!.createdAt.getTime() - closedAt); // the first ten warm the JIT up
}
latencies.sort((a, b) => a - b);

// Throughput: 1,000 payments in one ledger.
const burst: Awaited<ReturnType<typeof newPayment>>[] = [];
for (let i = 0; i < BURST; i++) burst.push(await newPayment());
const beforeBurst = await lastSeq();
const submissions = payers.map((payer, i) => network.submitTransaction(paymentTx(network, payer, [burst[i]!])));
await network.closeLedger();
const burstClosedAt = Date.now();
for (const result of await Promise.all(submissions)) {
  if (result.status !== "included" || !result.successful) throw new Error(`burst transaction failed: ${JSON.stringify(result.resultCodes)}`);
}
const events = await waitForCompleted(beforeBurst, BURST);
const lastMs = Math.max(...events.map((e) => e.createdAt.getTime())) - burstClosedAt;

console.log(`ledger -> completed + outbox event (SQLite, ${SAMPLES} samples, one payment per ledger)`);
console.log(`  p50 ${percentile(latencies, 50)} ms   p99 ${percentile(latencies, 99)} ms   max ${latencies.at(-1)} ms   (aim: p99 < 100 ms)`);
console.log(`${BURST} payments landing in one ledger: all completed ${lastMs} ms after the close`);
console.log(`  ${Math.round((BURST / lastMs) * 1000)} payments/s   (aim: >= 500/s)`);

await server.close();
await app.stop();
await database.close();
for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
process.exit(0);
