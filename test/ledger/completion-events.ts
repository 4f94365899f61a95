// The events of a completion carry what the API shows for the rows as stored: each snapshot equals
// the view (paymentJson, checkoutSessionJson, invoiceJson) of the row read back through Prisma.
import { expect } from "vitest";
import { checkoutSessionJson } from "../../src/modules/checkout-sessions/checkout-sessions.view.ts";
import { invoiceInclude, invoiceJson } from "../../src/modules/invoices/invoices.view.ts";
import { paymentJson } from "../../src/modules/payments/payments.view.ts";
import type { TestApp } from "../support/test-app.ts";

/** Checks the completion events of the payment, its checkout session and its paid invoice against their rows. */
export async function expectCompletionSnapshots(t: TestApp, paymentId: string) {
  const db = t.database.db;
  const { publicUrl } = t.config;
  const asStored = (view: unknown) => JSON.parse(JSON.stringify(view));
  const eventData = async (resourceId: string, type: string) => JSON.parse((await db.event.findFirstOrThrow({ where: { resourceId, type } })).data);

  const payment = await db.payment.findUniqueOrThrow({ where: { id: paymentId } });
  expect(await eventData(paymentId, "payment.completed")).toEqual(asStored(paymentJson(payment, publicUrl)));
  const session = await db.checkoutSession.findUnique({ where: { paymentId } });
  if (session) {
    expect(await eventData(session.id, "checkout.session.completed")).toEqual(asStored(checkoutSessionJson({ ...session, payment }, publicUrl)));
  }
  const invoice = await db.invoice.findUnique({ where: { paymentId }, include: invoiceInclude });
  if (invoice?.status === "paid") expect(await eventData(invoice.id, "invoice.paid")).toEqual(asStored(invoiceJson(invoice, publicUrl)));
}
