// A Prisma transaction holds one database connection; a query plan that reads relations side by side
// (an `include` of several) sends them at once on it. node-postgres queues them today but deprecates
// it ("Calling client.query() when the client is already executing a query", removed in pg 9), so
// the service's transactions send one query at a time. Watched at Prisma's driver adapter.
import { expect, it } from "vitest";
import { failPayment } from "../src/modules/payments/payment-failure.ts";
import { watchPrismaQueries } from "./support/prisma-queries.ts";
import { startTestAppWithMerchant } from "./support/test-app.ts";

const prisma = watchPrismaQueries();
const { t, merchant } = await startTestAppWithMerchant();
const key = merchant.sandboxKey;

it("voids an open invoice, with its items, payment and session, one query at a time", async () => {
  const items = [
    { description: "Widget", quantity: "3", unit_amount: "7.5" },
    { description: "Shipping", quantity: "1", unit_amount: "3" },
  ];
  const invoice = await t.api("POST", "/invoices", { key, body: { amount: "25.5", items } });
  expect((await t.api("POST", `/invoices/${invoice.body.id}/finalize`, { key })).status).toBe(200);
  prisma.mostAtOnceInATransaction = 0;
  const voided = await t.api("POST", `/invoices/${invoice.body.id}/void`, { key });
  expect(voided.status).toBe(200);
  expect(voided.body).toMatchObject({ status: "void", items: [{ description: "Widget" }, { description: "Shipping" }] });
  const payment = await t.api("GET", `/payments/${voided.body.payment_intent_id}`, { key });
  expect(payment.body.status).toBe("expired");
  expect(prisma.mostAtOnceInATransaction).toBe(1);
});

it("fails a payment's attempt one query at a time", async () => {
  const payment = await t.api("POST", "/payments", { key, body: { amount: "1" } });
  prisma.mostAtOnceInATransaction = 0;
  const failed = await t.database.db.$transaction((tx) => failPayment(tx, t.deps, { id: payment.body.id }, "underfunded"));
  expect(failed.status).toBe("failed");
  expect(prisma.mostAtOnceInATransaction).toBe(1);
});

