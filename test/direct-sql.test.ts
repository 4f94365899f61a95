// The driver-level reads must return exactly what Prisma returns for the same rows, and the rows the
// driver-level writes store must read back through Prisma exactly as the service returned them.
import { expect, it } from "vitest";
import { createHash } from "node:crypto";
import pg from "pg";
import { directSql } from "../src/db/client.ts";
import { unrevokedApiKeyByHash } from "../src/modules/api-keys/api-keys.store.ts";
import { insertEventStatement } from "../src/modules/events/events.store.ts";
import { findInvoiceWithDetails } from "../src/modules/invoices/invoices.store.ts";
import { organizationSettings } from "../src/modules/organizations/organizations.store.ts";
import { findPaymentLink } from "../src/modules/payment-links/payment-links.store.ts";
import { createPayment } from "../src/modules/payments/payments.service.ts";
import { paymentById } from "../src/modules/payments/payments.store.ts";
import { createInvoice, finalizeInvoice } from "../src/modules/invoices/invoices.service.ts";
import { PG_ADMIN_URL } from "./support/prerequisites.ts";
import { startTestAppWithMerchant } from "./support/test-app.ts";

const { t, merchant } = await startTestAppWithMerchant();

it("reads a payment exactly as Prisma does, with every column type set", async () => {
  const created = await t.api("POST", "/payments", {
    key: merchant.sandboxKey,
    body: { amount: "922337203685.4775807", description: "max", metadata: { a: "b" } },
  });
  expect(created.status).toBe(201);
  // Fill the columns a fresh payment leaves null, including a boolean and a second BigInt.
  await t.database.db.payment.update({
    where: { id: created.body.id },
    data: {
      status: "completed",
      late: true,
      amountReceived: 9_223_372_036_854_775_807n,
      confirmedAt: new Date("2026-01-02T03:04:05.678Z"),
      txHash: "a".repeat(64),
      paidAssetCode: "XLM",
    },
  });
  const viaPrisma = await t.database.db.payment.findUnique({ where: { id: created.body.id } });
  const viaDriver = await paymentById(t.database.db, created.body.id);
  expect(viaDriver).toEqual(viaPrisma);
  expect(viaDriver!.amount).toBe(9_223_372_036_854_775_807n);
  expect(viaDriver!.late).toBe(true);
  expect(viaDriver!.confirmedAt!.toISOString()).toBe("2026-01-02T03:04:05.678Z");
  expect(await paymentById(t.database.db, "pay_missing")).toBeNull();
});

it("reads an API key exactly as Prisma does, and no revoked one", async () => {
  const hash = createHash("sha256").update(merchant.liveKey).digest("hex");
  const viaPrisma = await t.database.db.apiKey.findUnique({ where: { hash } });
  expect(await unrevokedApiKeyByHash(t.database.db, hash)).toEqual(viaPrisma);
  await t.database.db.apiKey.update({ where: { hash }, data: { revokedAt: new Date("2026-03-04T05:06:07.089Z") } });
  expect(await unrevokedApiKeyByHash(t.database.db, hash)).toBeNull();
  expect(await unrevokedApiKeyByHash(t.database.db, "0".repeat(64))).toBeNull();
});

it("reads organization settings as Prisma does: wallet, assets oldest first, rates", async () => {
  const { enableAsset, setExchangeRate } = await import("../src/modules/organizations/organizations.service.ts");
  const scope = { organizationId: merchant.organizationId, environment: "sandbox" as const };
  const issuer = merchant.wallet.publicKey();
  // USDC first by a millisecond: two calls in one millisecond would be ordered by code instead.
  const at = (ms: number) => ({ ...t.deps, clock: { now: () => new Date(Date.UTC(2026, 0, 1, 0, 0, 0, ms)) } });
  await enableAsset(at(1), { ...scope, code: "USDC", issuer });
  await enableAsset(at(2), { ...scope, code: "EURC", issuer });
  await setExchangeRate(t.deps, { ...scope, currency: "USD", assetCode: "XLM", price: "0.25" });
  const rows = await organizationSettings(t.database.db, scope);
  const viaPrisma = await t.database.db.organization.findUnique({
    where: { id: scope.organizationId },
    include: {
      settings: { where: { environment: "sandbox" } },
      assets: { where: { environment: "sandbox" }, orderBy: { createdAt: "asc" } },
      rates: { where: { environment: "sandbox" } },
    },
  });
  expect(rows.organization).toEqual({ name: viaPrisma!.name });
  expect(rows.settings).toEqual({ settlementAddress: issuer, displayName: viaPrisma!.settings[0]!.displayName });
  expect(rows.assets).toEqual(viaPrisma!.assets.map((a) => ({ code: a.code, issuer: a.issuer })));
  expect(rows.assets.map((a) => a.code)).toEqual(["USDC", "EURC"]);
  expect(rows.rates).toEqual([{ currency: "USD", assetCode: "XLM", assetIssuer: "", price: "0.25" }]);
  const none = await organizationSettings(t.database.db, { organizationId: "org_missing", environment: "sandbox" });
  expect(none).toEqual({ organization: null, settings: null, assets: [], rates: [] });
});

it("stores a payment, its event, a session and an invoice exactly as Prisma reads them back", async () => {
  const ctx = { ...t.deps, scope: { organizationId: merchant.organizationId, environment: "sandbox" as const, principal: { kind: "key" as const, id: "", role: "admin" as const } } };
  const payment = await createPayment(ctx, { amount: 922_337_203_685_477_580_7n, description: "max", metadata: { a: "b" } });
  expect(await t.database.db.payment.findUnique({ where: { id: payment.id } })).toEqual(payment);
  const event = await t.database.db.event.findFirstOrThrow({ where: { resourceId: payment.id } });
  expect(event.type).toBe("payment.created");

  const invoice = await createInvoice(ctx, {
    amount: 50_000_000n,
    items: [{ description: "Tea", quantity: "2", unit_amount: 25_000_000n }],
  });
  const { invoiceInclude } = await import("../src/modules/invoices/invoices.view.ts");
  expect(await t.database.db.invoice.findUnique({ where: { id: invoice.id }, include: invoiceInclude })).toEqual(invoice);
  const { invoice: open } = await finalizeInvoice(ctx, invoice.id);
  const viaPrisma = await t.database.db.invoice.findUnique({ where: { id: invoice.id }, include: invoiceInclude });
  expect(viaPrisma).toEqual(open);
  expect(await findInvoiceWithDetails(t.database.db, invoice.id)).toEqual(viaPrisma);
  expect(await findInvoiceWithDetails(t.database.db, "inv_missing")).toBeNull();
});

it("reads a payment link exactly as Prisma does", async () => {
  const created = await t.api("POST", "/payment-links", { key: merchant.sandboxKey, body: { amount: "5", description: "Tea", metadata: { k: "v" } } });
  expect(created.status).toBe(201);
  const viaPrisma = await t.database.db.paymentLink.findUnique({ where: { id: created.body.id } });
  expect(await findPaymentLink(t.database.db, created.body.id)).toEqual(viaPrisma);
  expect(viaPrisma!.active).toBe(true);
});

it("rolls a whole batch back when one statement's expectation fails", async () => {
  const sql = directSql(t.database.db);
  const before = await t.database.db.event.count();
  const row = { id: "evt_rollback", organizationId: merchant.organizationId, environment: "sandbox", type: "payment.created", resourceId: "pay_x", data: "{}", createdAt: new Date(), fannedOutAt: null };
  await expect(
    sql.batch([
      insertEventStatement(t.database.db, row),
      { text: `UPDATE "Invoice" SET "status" = 'open' WHERE "id" = $1`, params: ["inv_missing"], expect: { changes: 1, error: () => new Error("no such invoice") } },
    ]),
  ).rejects.toThrow("no such invoice");
  expect(await t.database.db.event.count()).toBe(before);
});

it("commits batches asked for together independently: one failing changes nothing of the others", async () => {
  const sql = directSql(t.database.db);
  const row = (id: string) => ({ id, organizationId: merchant.organizationId, environment: "sandbox", type: "payment.created", resourceId: "pay_group", data: "{}", createdAt: new Date(), fannedOutAt: null });
  const failing = { text: `UPDATE "Invoice" SET "status" = 'open' WHERE "id" = $1`, params: ["inv_missing"], expect: { changes: 1, error: () => new Error("refused") } };
  await sql.batch([insertEventStatement(t.database.db, row("evt_group_0"))]);
  const outcomes = await Promise.allSettled([
    sql.batch([insertEventStatement(t.database.db, row("evt_group_1"))]),
    sql.batch([insertEventStatement(t.database.db, row("evt_group_2")), failing]),
    sql.batch([insertEventStatement(t.database.db, row("evt_group_3"))]),
    // an id already taken: a constraint error, in the middle of the group
    sql.batch([insertEventStatement(t.database.db, row("evt_group_0"))]),
  ]);
  expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled", "rejected"]);
  const stored = await t.database.db.event.findMany({ where: { resourceId: "pay_group" }, select: { id: true } });
  expect(stored.map((e) => e.id).sort()).toEqual(["evt_group_0", "evt_group_1", "evt_group_3"]);
});

it("waits for a Prisma transaction holding the database instead of blocking it", async () => {
  const sql = directSql(t.database.db);
  const row = (id: string) => ({ id, organizationId: merchant.organizationId, environment: "sandbox", type: "payment.created", resourceId: "pay_y", data: "{}", createdAt: new Date(), fannedOutAt: null });
  let direct: Promise<unknown> | null = null;
  await t.database.db.$transaction(async (tx) => {
    await tx.event.create({ data: row("evt_prisma_first") });
    // Started while the interactive transaction holds the write lock; it must neither fail nor
    // freeze the event loop the transaction needs to commit.
    direct = sql.batch([insertEventStatement(t.database.db, row("evt_direct_second"))]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await tx.event.create({ data: row("evt_prisma_third") });
  });
  await direct;
  const seqs = await t.database.db.event.findMany({ where: { resourceId: "pay_y" }, orderBy: { seq: "asc" }, select: { id: true } });
  expect(seqs.map((e) => e.id).sort()).toEqual(["evt_direct_second", "evt_prisma_first", "evt_prisma_third"]);
});

// A power cut cannot be staged here; what makes a commit survive one is this setting of every
// connection that writes: SQLite syncs the WAL at each commit only with synchronous = FULL
// (better-sqlite3's build would leave it at NORMAL), which the service sets. PostgreSQL waits for its
// WAL flush with synchronous_commit on, the server's default and its operator's choice: the service
// never lowers it, so its connections have the database's own setting (the tests' database has it
// off, test/support/prerequisites.ts, which shows that they take it from there).
it("commits durably: every connection that writes syncs at each commit (PostgreSQL: as the database is set)", async () => {
  const setting =
    t.database.dialect === "sqlite"
      ? { query: "PRAGMA synchronous", durable: [{ synchronous: 2n }] }
      : { query: "SHOW synchronous_commit", durable: await databaseSetting("synchronous_commit") };
  const [direct] = await directSql(t.database.db).batch([{ text: setting.query, params: [] }]);
  expect(direct!.rows).toEqual(setting.durable);
  expect(await t.database.db.$queryRawUnsafe(setting.query)).toEqual(setting.durable);
});

/** A setting as a plain connection to the tests' PostgreSQL database has it. */
async function databaseSetting(name: string): Promise<Record<string, string>[]> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    return (await client.query(`SHOW ${name}`)).rows;
  } finally {
    await client.end();
  }
}
