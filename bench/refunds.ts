// `tsx bench/refunds.ts`: from a refund's transaction landing in a simulated ledger to the refund
// being `succeeded` with refund.succeeded in the outbox, through the real path (the merchant's wallet
// sends the signed transaction itself; Horizon SSE stream of the built-in simulated network over
// HTTP -> verifier's recognition -> one database transaction), on SQLite. One refund per ledger,
// BENCH_REFUND_SAMPLES times (default 100): p50 / p99 of (event created_at - moment the ledger
// closed). Ledgers are closed by hand (closeLedger) so the clock starts exactly at the close.
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Keypair, Networks, TransactionBuilder } from "@stellar/stellar-sdk";
import { authenticateApiKey } from "../src/modules/api-keys/api-keys.service.ts";
import { createOrganization, setSettlementWallet } from "../src/modules/organizations/organizations.service.ts";
import { createPayment } from "../src/modules/payments/payments.service.ts";
import { createRefund, prepareRefundTransaction } from "../src/modules/refunds/refunds.service.ts";
import { serve } from "../src/server.ts";
import { inProcessApp } from "./lib/in-process.ts";
import { percentile } from "./lib/measure.ts";
import { paymentTx } from "./lib/payment-tx.ts";

const SAMPLES = Number(process.env.BENCH_REFUND_SAMPLES ?? 100);
const WARM_UP = 10;

const path = join(tmpdir(), `bench-refunds-${randomBytes(4).toString("hex")}.db`);
const { database, deps, app } = await inProcessApp({
  DATABASE_URL: `file:${path}`,
  LEDGER: "simulated",
  SIM_LEDGER_CLOSE_MS: String(24 * 3600_000),
  LOG_LEVEL: "silent",
});
const server = await serve(app, { port: 0, host: "127.0.0.1" });
await app.start({ url: server.url });
const network = app.ledger.simulatedNetwork(Networks.TESTNET)!;
const closeWith = async <T>(pending: Promise<T>) => {
  await network.closeLedger();
  return pending;
};

const wallet = Keypair.random();
const payer = Keypair.random();
await closeWith(Promise.all([network.fund(wallet.publicKey()), network.fund(payer.publicKey())]));
const org = await createOrganization(deps, { name: "Bench" });
await setSettlementWallet(deps, { organizationId: org.organization_id, environment: "sandbox", address: wallet.publicKey() });
const ctx = { ...deps, ledger: app.ledger, scope: (await authenticateApiKey(deps, org.sandbox_api_key))! };

// Payments of 1 XLM, paid 100 to a transaction: each refund sends one back.
const payments = [];
for (let i = 0; i < SAMPLES + WARM_UP; i++) payments.push(await createPayment(ctx, { amount: 10_000_000n }));
// One more stays pending, so the wallet is watched as real traffic would keep it.
await createPayment(ctx, { amount: 10_000_000n });
await app.ledger.streamer.refresh();
for (let i = 0; i < payments.length; i += 100) {
  const result = await closeWith(network.submitTransaction(paymentTx(network, payer, payments.slice(i, i + 100))));
  if (result.status !== "included" || !result.successful) throw new Error(`payments failed: ${JSON.stringify(result.resultCodes)}`);
}
const completedIds = payments.map((p) => p.id);
for (let deadline = Date.now() + 60_000; ; ) {
  const done = await database.db.payment.count({ where: { id: { in: completedIds }, status: "completed" } });
  if (done === payments.length) break;
  if (Date.now() > deadline) throw new Error(`only ${done}/${payments.length} payments completed`);
  await new Promise((resolve) => setTimeout(resolve, 50));
}

const latencies: number[] = [];
for (const [i, payment] of payments.entries()) {
  const refund = await createRefund(ctx, { payment_id: payment.id });
  const prepared = (await prepareRefundTransaction(ctx, refund))!;
  const tx = TransactionBuilder.fromXDR(prepared.xdr, Networks.TESTNET);
  tx.sign(wallet);
  const landed = network.submitTransaction(tx.toEnvelope().toXDR("base64"));
  await network.closeLedger();
  const closedAt = Date.now();
  const result = await landed;
  if (result.status !== "included" || !result.successful) throw new Error(`refund failed: ${JSON.stringify(result.resultCodes)}`);
  let event = null;
  for (let deadline = Date.now() + 30_000; !event; ) {
    event = await database.db.event.findFirst({ where: { resourceId: refund.id, type: "refund.succeeded" }, select: { createdAt: true } });
    if (Date.now() > deadline) throw new Error(`refund ${refund.id} not recognized`);
    // Coarse polling: the figure comes from the event's own timestamp, not from when it is seen.
    if (!event) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  if (i >= WARM_UP) latencies.push(event.createdAt.getTime() - closedAt);
}
latencies.sort((a, b) => a - b);

console.log(`ledger -> refund succeeded + outbox event (SQLite, ${SAMPLES} samples, one refund per ledger, sent by the wallet itself)`);
console.log(`  p50 ${percentile(latencies, 50)} ms   p99 ${percentile(latencies, 99)} ms   max ${latencies.at(-1)} ms   (aim: p99 < 50 ms)`);

await server.close();
await app.stop();
await database.close();
