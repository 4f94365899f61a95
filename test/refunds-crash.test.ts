// kill -9 between a refund's submission and the ledger's answer: the real service (src/main.ts in a
// child process, with the test hook TEST_CRASH_AT=refund-before-answer) dies after the network took
// the refund's transaction and before it recorded the answer. Restarted on the same database, the
// network stream finds the transaction by its hash: the refund ends succeeded once, with one
// refund.succeeded event and one webhook delivery of it.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Keypair, Memo, Networks, TransactionBuilder } from "@stellar/stellar-sdk";
import { expect, it } from "vitest";
import { isAlive } from "../bench/lib/processes.ts";
import { prepareMerchant, serviceEnv, startServiceProcess } from "../bench/lib/service.ts";
import { SimulatedNetwork } from "../src/ledger/simulated/index.ts";
import { setSettlementWallet } from "../src/modules/organizations/organizations.service.ts";
import { serve } from "../src/server.ts";
import { systemClock } from "../src/shared/clock.ts";
import { fileCleanups } from "./support/file-cleanups.ts";
import { fundedPayer, payOp, signedTransaction, submit, waitFor, walletOn } from "./support/ledger.ts";
import { freshDatabaseUrl } from "./support/test-app.ts";

const cleanups = fileCleanups();

it("ends a refund once after a kill between its submission and the ledger's answer", { timeout: 120_000 }, async () => {
  // A Stellar test network of our own, reached over HTTP as Horizon would be: it outlives the service.
  const network = new SimulatedNetwork({ networkPassphrase: Networks.TESTNET, basePath: "/net", ledgerCloseMs: 100, clock: systemClock });
  const horizonServer = await serve((request) => network.fetch(request), { port: 0, host: "127.0.0.1" });
  network.start();
  cleanups.push(() => horizonServer.close(), () => network.stop());
  const horizonUrl = `${horizonServer.url}/net/horizon`;

  const database = await freshDatabaseUrl();
  cleanups.push(() => database.drop());
  const env = serviceEnv(database.url, { WORKERS: "1", LOG_LEVEL: "silent", HORIZON_TESTNET_URL: horizonUrl, WEBHOOK_ALLOW_PRIVATE: "true" });
  const { org, deps, database: setup } = await prepareMerchant(env);
  cleanups.push(() => setup.close());
  // The merchant's own wallet: the test holds its key, as the merchant's wallet app would.
  const settlement = Keypair.random();
  await setSettlementWallet(deps, { organizationId: org.organization_id, environment: "sandbox", address: settlement.publicKey() });
  await network.fund(settlement.publicKey());

  const received: { type: string; refundId: string }[] = [];
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const { event, data } = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { event: string; data: { id: string } };
      received.push({ type: event, refundId: data.id });
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => receiver.closeAllConnections(), () => new Promise((done) => receiver.close(done)));

  const api = async (base: string, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${org.sandbox_api_key}`, ...(body !== undefined && { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };

  const first = await startServiceProcess({ ...env, TEST_CRASH_AT: "refund-before-answer" });
  cleanups.push(() => first.stop());
  const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  expect((await api(first.url, "POST", "/webhook-endpoints", { url: hookUrl, enabled_events: ["refund.succeeded"] })).status).toBe(201);

  // A customer pays; the merchant refunds it, signs, and submits: the service dies before the answer.
  const wallet = walletOn(network, horizonUrl);
  const payment = (await api(first.url, "POST", "/payments", { amount: "3" })).body;
  const payer = await fundedPayer(wallet);
  const { destination, memo } = payment.payment_instructions;
  await submit(wallet, await signedTransaction(wallet, payer, [payOp(destination, "3")], { memo: Memo.id(memo) }));
  await waitFor(async () => (await api(first.url, "GET", `/payments/${payment.id}`)).body, (p) => p.status === "completed", 30_000);
  const refund = (await api(first.url, "POST", "/refunds", { payment_id: payment.id })).body;
  expect(refund.status).toBe("requires_signature");
  const tx = TransactionBuilder.fromXDR(refund.transaction_xdr, Networks.TESTNET);
  tx.sign(settlement);
  const hash = tx.hash().toString("hex");
  const before = BigInt(network.balance(payer.publicKey())!.replace(".", ""));
  await expect(api(first.url, "POST", `/refunds/${refund.id}/submit`, { signed_transaction_xdr: tx.toEnvelope().toXDR("base64") })).rejects.toThrow();
  await waitFor(async () => isAlive(first.pid), (alive) => !alive, 20_000);

  // The ledger has the refund; the database only knows it was submitted.
  expect(BigInt(network.balance(payer.publicKey())!.replace(".", "")) - before).toBe(30_000_000n);
  expect(await setup.db.refund.findUniqueOrThrow({ where: { id: refund.id } })).toMatchObject({ status: "submitted", txHash: hash });
  expect(await setup.db.event.count({ where: { resourceId: refund.id, type: "refund.succeeded" } })).toBe(0);

  // Restarted without the hook, the stream resumes from its cursor and finds the transaction by its hash.
  const second = await startServiceProcess(env);
  cleanups.push(() => second.stop());
  const done = await waitFor(async () => (await api(second.url, "GET", `/refunds/${refund.id}`)).body, (r) => r.status === "succeeded", 30_000);
  expect(done).toMatchObject({ tx_hash: hash });
  expect((await api(second.url, "GET", `/payments/${payment.id}`)).body).toMatchObject({ amount_refunded: "3.0000000", status: "completed" });
  const events = await setup.db.event.findMany({ where: { resourceId: refund.id, type: "refund.succeeded" } });
  expect(events).toHaveLength(1);
  await waitFor(async () => received, (r) => r.length > 0, 20_000);
  // Give a second delivery, were there one, time to arrive.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect(received).toEqual([{ type: "refund.succeeded", refundId: refund.id }]);
});
