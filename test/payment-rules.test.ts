// The payment rules that are also query conditions are written once (payment-states.ts) and turned
// into SQL once (payments.store.ts): what the database selects must be exactly what the rule says of
// each row, on payments in every status, around every boundary (expires_at equal to now, expired
// exactly at the edge of the late window, no expiry at all). And the event of every move of a
// payment, whoever makes it, carries the payment as the API shows it after the move.
import { Keypair } from "@stellar/stellar-sdk";
import { expect, it } from "vitest";
import type { Payment } from "../src/generated/sqlite/client.ts";
import { failPayment } from "../src/modules/payments/payment-failure.ts";
import { LATE_WINDOW_MS, isDueToExpire, openForLedger } from "../src/modules/payments/payment-states.ts";
import { expireDuePayments } from "../src/modules/payments/payment-completion.ts";
import { oldestOpenForLedgerUnfollowed, walletsOpenForLedger } from "../src/modules/payments/payments.store.ts";
import { startTestAppWithMerchant } from "./support/test-app.ts";

const { t, merchant } = await startTestAppWithMerchant();
const db = t.database.db;

const now = t.clock.now();
const minutes = (n: number) => new Date(now.getTime() + n * 60_000);
const shared = [Keypair.random().publicKey(), Keypair.random().publicKey()];
const expiries = [null, minutes(-1), now, minutes(1), new Date(now.getTime() - LATE_WINDOW_MS), new Date(now.getTime() - LATE_WINDOW_MS - 1)];
const statuses = ["pending", "failed", "expired", "completed"];
const completedWallet = Keypair.random().publicKey();

/**
 * One payment per status and expiry. Pending and failed ones take turns on two wallets; each expired
 * one has a wallet of its own, so the late window alone decides whether its wallet is streamed;
 * completed ones share a wallet that is never open.
 */
async function seed(): Promise<Payment[]> {
  const rows: Payment[] = [];
  let turn = 0;
  for (const status of statuses) {
    for (const expiresAt of expiries) {
      t.clock.advance(1000); // each created at a time of its own, for the oldest
      const created = await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "1" } });
      expect(created.status).toBe(201);
      const settlementAddress = status === "expired" ? Keypair.random().publicKey() : status === "completed" ? completedWallet : shared[turn++ % 2]!;
      rows.push(await db.payment.update({ where: { id: created.body.id }, data: { status, expiresAt, settlementAddress } }));
    }
  }
  return rows;
}

const payments = await seed();
const walletKey = (p: Payment) => `${p.networkPassphrase}|${p.settlementAddress}`;
/** What payment-states.ts says of one payment, row by row. */
const isOpenForLedger = (p: Payment, lateSince: Date) =>
  openForLedger(lateSince).some((c) => c.status === p.status && (c.expiredSince === null || (p.expiresAt !== null && p.expiresAt >= c.expiredSince)));

it("open for the ledger: the watched wallets and the oldest open payment of wallets no per-wallet cursor followed are what the rule says", async () => {
  const network = payments[0]!.networkPassphrase;
  const oldestOf = (ps: Payment[]) => (ps.length ? new Date(Math.min(...ps.map((p) => p.createdAt.getTime()))) : null);
  for (const lateSince of [new Date(now.getTime() - LATE_WINDOW_MS), now, minutes(5)]) {
    const open = payments.filter((p) => isOpenForLedger(p, lateSince));
    expect(await walletsOpenForLedger(db, lateSince), lateSince.toISOString()).toEqual(new Set(open.map(walletKey)));
    expect(await oldestOpenForLedgerUnfollowed(db, network, lateSince)).toEqual(oldestOf(open));
  }
  // A wallet that a per-wallet stream (before #16) followed past "0" no longer counts; one at "0" still does.
  const lateSince = new Date(now.getTime() - LATE_WINDOW_MS);
  const open = payments.filter((p) => isOpenForLedger(p, lateSince));
  const [followed, atStart] = shared as [string, string];
  await db.ledgerCursor.createMany({
    data: [
      { networkPassphrase: network, account: followed, cursor: "12884901888" },
      { networkPassphrase: network, account: atStart, cursor: "0" },
    ],
  });
  expect(await oldestOpenForLedgerUnfollowed(db, network, lateSince)).toEqual(oldestOf(open.filter((p) => p.settlementAddress !== followed)));
  await db.ledgerCursor.deleteMany({ where: { networkPassphrase: network } });
  // the rule does distinguish: something is open, something is not
  expect(payments.some((p) => isOpenForLedger(p, now))).toBe(true);
  expect(payments.some((p) => !isOpenForLedger(p, now))).toBe(true);
});

it("due to expire: the sweeper's batches move exactly the payments isDueToExpire names, longest overdue first, each once", async () => {
  const moved = new Set<string>();
  for (const at of [minutes(-2), minutes(-1), now, minutes(1), minutes(60)]) {
    const expected = payments.filter((p) => isDueToExpire(p, at) && !moved.has(p.id));
    const order: Payment[] = [];
    // batches of two, so the order holds across batches as well as within one
    for (;;) {
      const batch = await expireDuePayments({ ...t.deps, clock: { now: () => at } }, 2);
      order.push(...batch);
      if (batch.length < 2) break;
    }
    expect(new Set(order.map((p) => p.id)), at.toISOString()).toEqual(new Set(expected.map((p) => p.id)));
    expect(order.every((p) => p.status === "expired")).toBe(true);
    const expiresAt = order.map((p) => p.expiresAt!.getTime());
    expect(expiresAt).toEqual([...expiresAt].sort((a, b) => a - b));
    for (const p of order) moved.add(p.id);
  }
  // the rule does distinguish: something was due, something never was
  expect(moved.size).toBeGreaterThan(0);
  expect(moved.size).toBeLessThan(payments.length);
});

it("every payment.* event, whoever moves the payment, carries the payment as GET /payments/{id} shows it after the move", async () => {
  const key = merchant.sandboxKey;
  const create = async (body: Record<string, unknown> = {}) => (await t.api("POST", "/payments", { key, body: { amount: "1", ...body } })).body as { id: string };
  const read = async (id: string) => (await t.api("GET", `/payments/${id}`, { key })).body;
  const eventData = async (id: string, type: string) =>
    JSON.parse((await db.event.findFirstOrThrow({ where: { resourceId: id, type }, orderBy: { seq: "desc" } })).data);

  const created = await create();
  expect(await eventData(created.id, "payment.created")).toEqual(await read(created.id));

  const failed = await create();
  await db.$transaction((tx) => failPayment(tx, t.deps, failed, "tx_failed, op_underfunded"));
  expect(await eventData(failed.id, "payment.failed")).toEqual(await read(failed.id));

  const completed = await create();
  expect((await t.api("POST", `/payments/${completed.id}/complete`, { key, body: { tx_hash: "ab".repeat(32) } })).status).toBe(200);
  expect(await eventData(completed.id, "payment.completed")).toEqual(await read(completed.id));

  const invoice = (await t.api("POST", "/invoices", { key, body: { amount: "2" } })).body as { id: string };
  const finalized = (await t.api("POST", `/invoices/${invoice.id}/finalize`, { key })).body;
  expect((await t.api("POST", `/invoices/${invoice.id}/void`, { key })).status).toBe(200);
  const voidedPayment = finalized.invoice.payment_intent_id as string;
  expect(await eventData(voidedPayment, "payment.expired")).toEqual(await read(voidedPayment));

  const expired = await create({ expires_in_minutes: 5 });
  t.clock.advance(5 * 60_000);
  await t.app.ledger.sweeper.runOnce();
  expect(await eventData(expired.id, "payment.expired")).toEqual(await read(expired.id));
  expect((await read(expired.id)).status).toBe("expired");
});
