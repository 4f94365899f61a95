// The payment rules that are also query conditions are written once (payment-states.ts) and turned
// into SQL once (payments.store.ts): what the database selects must be exactly what the rule says of
// each row, on payments in every status, around every boundary (expires_at equal to now, expired
// exactly at the edge of the late window, no expiry at all).
import { Keypair } from "@stellar/stellar-sdk";
import { expect, it } from "vitest";
import type { Payment } from "../src/generated/sqlite/client.ts";
import { LATE_WINDOW_MS, isDueToExpire, openForLedger } from "../src/modules/payments/payment-states.ts";
import { oldestOpenForLedger, paymentIdsDueToExpire, walletsOpenForLedger } from "../src/modules/payments/payments.store.ts";
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

it("due to expire: the sweeper's query selects exactly the payments isDueToExpire names", async () => {
  for (const at of [minutes(-2), minutes(-1), now, minutes(1), minutes(60)]) {
    const selected = await paymentIdsDueToExpire(db, at, 1000);
    const expected = payments.filter((p) => isDueToExpire(p, at)).sort((a, b) => a.expiresAt!.getTime() - b.expiresAt!.getTime());
    expect(new Set(selected), at.toISOString()).toEqual(new Set(expected.map((p) => p.id)));
    // the longest overdue first
    const expiresAt = selected.map((id) => payments.find((p) => p.id === id)!.expiresAt!.getTime());
    expect(expiresAt).toEqual([...expiresAt].sort((a, b) => a - b));
  }
});

it("open for the ledger: the streamed wallets and each wallet's oldest open payment are what the rule says", async () => {
  for (const lateSince of [new Date(now.getTime() - LATE_WINDOW_MS), now, minutes(5)]) {
    const open = payments.filter((p) => isOpenForLedger(p, lateSince));
    expect(await walletsOpenForLedger(db, lateSince), lateSince.toISOString()).toEqual(new Set(open.map(walletKey)));
    for (const account of new Set(payments.map((p) => p.settlementAddress))) {
      const ofWallet = open.filter((p) => p.settlementAddress === account);
      const oldest = ofWallet.length ? new Date(Math.min(...ofWallet.map((p) => p.createdAt.getTime()))) : null;
      expect(await oldestOpenForLedger(db, { account, networkPassphrase: payments[0]!.networkPassphrase }, lateSince)).toEqual(oldest);
    }
  }
  // the rule does distinguish: something is open, something is not
  expect(payments.some((p) => isOpenForLedger(p, now))).toBe(true);
  expect(payments.some((p) => !isOpenForLedger(p, now))).toBe(true);
});
