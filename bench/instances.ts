// `npm run bench:instances`: one instance against two on one PostgreSQL database, in the same run.
// Each instance is the real service (src/main.ts, WORKERS=1) in a process of its own with its own
// port, as on two machines; they share one simulated Stellar network served by this process over
// HTTP as their Horizon (ledgers closed by hand), and a local webhook receiver answering 200.
// For each setup, on a fresh schema, after a warm-up burst of 200: BENCH_PAYMENTS (default 2000)
// payments land in one ledger (in transactions of 100 operations); the figures are completions/s
// (the close to the last payment.completed event's commit) and deliveries/s (the close to the
// receiver getting the last payment.completed webhook). BENCH_DATABASE_URL picks the PostgreSQL server (database `test` on
// 127.0.0.1 by default).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { Account, Asset, Keypair, Networks, Operation, TimeoutInfinite, TransactionBuilder } from "@stellar/stellar-sdk";
import pg from "pg";
import type { ChildServer } from "./lib/processes.ts";
import { prepareMerchant, serviceEnv, startServiceProcess } from "./lib/service.ts";
import { PG_URL } from "./lib/sse-fan-out.ts";
import { SimulatedNetwork } from "../src/ledger/simulated/index.ts";
import type { Payment } from "../src/generated/sqlite/client.ts";
import { createPayment } from "../src/modules/payments/payments.service.ts";
import { muxedAddress } from "../src/modules/payments/payment-instructions.ts";
import { serve } from "../src/server.ts";
import { systemClock } from "../src/shared/clock.ts";

const PAYMENTS = Number(process.env.BENCH_PAYMENTS ?? 2000);
const OPS_PER_TX = 100;
const postgres = process.env.BENCH_DATABASE_URL ?? PG_URL;

const network = new SimulatedNetwork({ networkPassphrase: Networks.TESTNET, basePath: "/net", ledgerCloseMs: 1000, clock: systemClock });
const horizon = await serve((request) => network.fetch(request), { port: 0, host: "127.0.0.1" });

/** A webhook receiver answering 200 at once; it notes when the n-th payment.completed arrived. */
const received: number[] = [];
const receiver = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    if (req.headers["service-event"] === "payment.completed") received.push(Date.now());
    res.end("ok");
  });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

async function waitUntil(done: () => Promise<boolean> | boolean, what: string, timeoutMs = 300_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function measure(instances: number) {
  const schema = `bench_instances_${randomBytes(4).toString("hex")}`;
  const url = new URL(postgres);
  url.searchParams.set("schema", schema);
  const env = serviceEnv(url.toString(), {
    WORKERS: "1",
    HORIZON_TESTNET_URL: `${horizon.url}/net/horizon`,
    PUBLIC_URL: "http://pay.example.test",
    WEBHOOK_SECRET_KEYS: randomBytes(32).toString("base64"),
    WEBHOOK_ALLOW_PRIVATE: "true",
  });
  const merchant = await prepareMerchant(env);
  const servers: ChildServer[] = await Promise.all(Array.from({ length: instances }, () => startServiceProcess(env)));
  const admin = new pg.Client({ connectionString: postgres });
  await admin.connect();
  try {
    await network.fund(merchant.wallet);
    const endpoint = await fetch(`${servers[0]!.url}/api/v1/webhook-endpoints`, {
      method: "POST",
      headers: { authorization: `Bearer ${merchant.org.sandbox_api_key}`, "content-type": "application/json" },
      body: JSON.stringify({ url: receiverUrl, enabled_events: ["payment.completed"] }),
    });
    if (endpoint.status !== 201) throw new Error(`webhook endpoint: ${endpoint.status} ${await endpoint.text()}`);

    const ctx = { ...merchant.deps, scope: { organizationId: merchant.org.organization_id, environment: "sandbox" as const, principal: { kind: "key" as const, id: "bench", role: "admin" as const } } };
    // An open payment keeps the wallet watched, as real traffic would.
    await createPayment(ctx, { amount: 10_000_000n });
    const completions = async () =>
      (await admin.query<{ n: string; last: Date | null }>(`SELECT count(*) AS n, max("createdAt") AS last FROM "${schema}"."Event" WHERE type = 'payment.completed'`)).rows[0]!;

    /** `count` payments landing in one ledger: when the last completed and the last webhook arrived, from the close. */
    async function burst(count: number) {
      const payments: Payment[] = [];
      for (let i = 0; i < count; i++) payments.push(await createPayment(ctx, { amount: 10_000_000n }));
      const payers = Array.from({ length: Math.ceil(count / OPS_PER_TX) }, () => Keypair.random());
      await Promise.all(payers.map((payer) => network.fund(payer.publicKey())));
      const transactions = payers.map((payer, i) => {
        const builder = new TransactionBuilder(new Account(payer.publicKey(), network.sequence(payer.publicKey())!), {
          fee: String(100 * OPS_PER_TX),
          networkPassphrase: Networks.TESTNET,
        });
        for (const p of payments.slice(i * OPS_PER_TX, (i + 1) * OPS_PER_TX)) {
          builder.addOperation(Operation.payment({ destination: muxedAddress(p.settlementAddress, p.memoId!), asset: Asset.native(), amount: "1" }));
        }
        const tx = builder.setTimeout(TimeoutInfinite).build();
        tx.sign(payer);
        return tx;
      });
      const completedBefore = Number((await completions()).n);
      received.length = 0;
      const landed = transactions.map((tx) => network.submitTransaction(tx));
      await network.closeLedger();
      const closedAt = Date.now();
      for (const result of await Promise.all(landed)) if (result.status !== "included" || !result.successful) throw new Error("a payment transaction failed");
      await waitUntil(async () => Number((await completions()).n) >= completedBefore + count, "completions");
      await waitUntil(() => received.length >= count, "deliveries");
      return { completedMs: (await completions()).last!.getTime() - closedAt, deliveredMs: received[count - 1]! - closedAt };
    }

    // The instances find the open payment and start watching (they look every second); a first
    // burst warms them up (JIT, connections), the second is measured.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await burst(Math.min(200, PAYMENTS));
    const { completedMs, deliveredMs } = await burst(PAYMENTS);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const twice = Number((await completions()).n) - PAYMENTS - Math.min(200, PAYMENTS);
    return { instances, completedMs, deliveredMs, twice, deliveries: received.length };
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await merchant.database.close();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  }
}

const rows = [];
for (const instances of [1, 2]) rows.push(await measure(instances));

console.log(`${PAYMENTS} payments landing in one ledger, PostgreSQL, each instance WORKERS=1 (same run)`);
console.log("| instances | all completed after | completions/s | all webhooks received after | deliveries/s | completed twice | webhooks received |");
console.log("|---:|---:|---:|---:|---:|---:|---:|");
for (const r of rows) {
  const perSecond = (ms: number) => Math.round((PAYMENTS / ms) * 1000).toLocaleString("en");
  console.log(`| ${r.instances} | ${r.completedMs} ms | ${perSecond(r.completedMs)} | ${r.deliveredMs} ms | ${perSecond(r.deliveredMs)} | ${r.twice} | ${r.deliveries} |`);
}

receiver.close();
await horizon.close();
await network.stop();
process.exit(0);
