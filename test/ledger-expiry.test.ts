// The expiry sweeper, driven by a TestClock: no sleeping, runOnce() does what the loop does each second.
import { describe, expect, it } from "vitest";
import { startTestAppWithMerchant } from "./support/test-app.ts";

const { t, merchant } = await startTestAppWithMerchant();

const read = async (path: string) => (await t.api("GET", path, { key: merchant.sandboxKey })).body;

describe("expiry sweeper", () => {
  it("expires a pending payment once expires_at has passed, and its checkout session with it", async () => {
    const payment = (await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "1", expires_in_minutes: 5 } })).body;
    const session = (await t.api("POST", "/checkout-sessions", { key: merchant.sandboxKey, body: { amount: "2", expires_in_minutes: 5 } })).body;
    const later = (await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "1", expires_in_minutes: 10 } })).body;
    const sweeper = t.app.ledger.sweeper;

    t.clock.advance(5 * 60_000 - 1000);
    await sweeper.runOnce();
    expect((await read(`/payments/${payment.id}`)).status).toBe("pending");

    t.clock.advance(1000);
    expect(await sweeper.runOnce()).toBe(2);
    expect((await read(`/payments/${payment.id}`)).status).toBe("expired");
    const expiredSession = await read(`/checkout-sessions/${session.id}`);
    expect(expiredSession.status).toBe("expired");
    expect((await read(`/payments/${later.id}`)).status).toBe("pending");

    const events = await t.database.db.event.findMany({ where: { resourceId: { in: [payment.id, session.id] } }, orderBy: { seq: "asc" } });
    expect(events.filter((e) => e.resourceId === payment.id).map((e) => e.type)).toEqual(["payment.created", "payment.expired"]);
    expect(events.filter((e) => e.resourceId === session.id).map((e) => e.type)).toContain("checkout.session.expired");

    // A second sweep finds nothing more to do, and never emits a second event.
    expect(await sweeper.runOnce()).toBe(0);
    expect(await t.database.db.event.count({ where: { resourceId: payment.id, type: "payment.expired" } })).toBe(1);
  });

  it("leaves a payment completed before its expiry alone", async () => {
    const payment = (await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "1", expires_in_minutes: 5 } })).body;
    const done = await t.api("POST", `/payments/${payment.id}/complete`, { key: merchant.sandboxKey, body: {} });
    expect(done.status).toBe(200);
    t.clock.advance(10 * 60_000);
    await t.app.ledger.sweeper.runOnce();
    expect((await read(`/payments/${payment.id}`)).status).toBe("completed");
  });
});

describe("idempotency records", () => {
  it("are purged by the retention purger once past their 24 hours", async () => {
    const headers = { "idempotency-key": "purge-me" };
    expect((await t.api("POST", "/customers", { key: merchant.sandboxKey, body: { name: "Purge Me" }, headers })).status).toBe(201);
    const { purger } = t.app;
    await purger.runOnce();
    expect(await t.database.db.idempotencyRecord.count({ where: { key: "purge-me" } })).toBe(1);

    t.clock.advance(25 * 60 * 60_000);
    await purger.runOnce();
    expect(await t.database.db.idempotencyRecord.count({ where: { key: "purge-me" } })).toBe(0);
  });
});
