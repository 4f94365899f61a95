// Background work in sets (#16): the expiry sweeper moves due payments a batch at a time, once each
// however many sweepers race; the idempotency purge goes a chunk at a time, oldest first; and the
// retention purger deletes old succeeded deliveries and old events, and keeps what is promised.
// Clock-driven: runOnce() does what each worker's loop does.
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "../src/db/client.ts";
import type { Payment } from "../src/generated/sqlite/client.ts";
import { claimIdempotencyKey } from "../src/modules/idempotency/idempotency.store.ts";
import { deleteExpiredIdempotencyRecords } from "../src/modules/idempotency/idempotency.service.ts";
import { createExpirySweeper } from "../src/modules/payments/expiry-sweeper.ts";
import { createRetentionPurger } from "../src/modules/retention/retention-purger.ts";
import { startTestAppWithMerchant } from "./support/test-app.ts";

const { t, merchant } = await startTestAppWithMerchant();
const db = t.database.db;
const key = merchant.sandboxKey;
const DAY = 24 * 60 * 60_000;

const read = async (path: string) => (await t.api("GET", path, { key })).body;
const eventsOf = (resourceId: string) => db.event.findMany({ where: { resourceId }, orderBy: { seq: "asc" } });

/** `count` payments due to expire, copies of one made through the API, at distinct expiry times; the prefix of their ids. */
async function seedDuePayments(count: number): Promise<string> {
  const template: Payment = await db.payment.findUniqueOrThrow({
    where: { id: (await t.api("POST", "/payments", { key, body: { amount: "1", expires_in_minutes: 5 } })).body.id },
  });
  const now = t.clock.now().getTime();
  const rows = Array.from({ length: count }, (_, i) => ({
    ...template,
    id: `${template.id}_${i}`,
    memoId: String(BigInt(template.memoId) - BigInt(i + 1)),
    expiresAt: new Date(now - 1000 - i),
  }));
  await db.payment.createMany({ data: rows });
  await db.payment.update({ where: { id: template.id }, data: { status: "completed" } });
  return `${template.id}_`;
}

describe("retention", () => {
  it("prunes succeeded deliveries and fanned-out events past their days, and keeps pending and failed deliveries, their events, and events not fanned out", async () => {
    const scope = { organizationId: merchant.organizationId, environment: "sandbox" };
    const created = t.clock.now();
    const endpoint = await db.webhookEndpoint.create({
      data: { id: "we_retention", ...scope, url: "https://example.test/hook", enabledEvents: '["*"]', secret: "whsec_test", createdAt: created, updatedAt: created },
    });
    const event = (name: string, at: Date, fannedOut: boolean) =>
      db.event.create({
        data: { id: `evt_${name}`, ...scope, type: "payment.created", resourceId: `pay_${name}`, data: "{}", createdAt: at, fannedOutAt: fannedOut ? at : null },
      });
    const delivery = async (name: string, at: Date, status: string) => {
      await db.webhookDelivery.create({
        data: {
          id: `whd_${name}`,
          ...scope,
          endpointId: endpoint.id,
          eventId: `evt_${name}`,
          eventType: "payment.created",
          status,
          attemptCount: 1,
          nextRetryAt: status === "pending" ? new Date(at.getTime() + DAY) : null,
          requestPayload: "{}",
          createdAt: at,
          updatedAt: at,
        },
      });
      await db.webhookAttempt.create({ data: { deliveryId: `whd_${name}`, number: 1, startedAt: at, durationMs: 5, responseCode: status === "succeeded" ? 200 : 500 } });
    };
    const old = created;
    const young = new Date(created.getTime() + 20 * DAY);
    await event("plain", old, true);
    await event("waiting", old, false);
    for (const [name, status] of [["ok", "succeeded"], ["ok2", "succeeded"], ["ok3", "succeeded"], ["failed", "failed"], ["retrying", "pending"]] as const) {
      await event(name, old, true);
      await delivery(name, old, status);
    }
    await event("young", young, true);
    await delivery("young", young, "succeeded");

    const purger = createRetentionPurger(t.deps, { chunkSize: 2 });
    t.clock.advance(29 * DAY);
    expect(await purger.runOnce()).toMatchObject({ deliveries: 0, events: 0 });

    t.clock.advance(2 * DAY);
    expect(await purger.runOnce()).toMatchObject({ deliveries: 3, events: 4 });
    const names = (rows: { id: string }[]) => rows.map((row) => row.id.slice(4)).sort();
    const ours = { id: { startsWith: "evt_" }, resourceId: { startsWith: "pay_" }, organizationId: scope.organizationId, data: "{}" };
    expect(names(await db.event.findMany({ where: ours }))).toEqual(["failed", "retrying", "waiting", "young"]);
    expect(names(await db.webhookDelivery.findMany({ where: { endpointId: endpoint.id } }))).toEqual(["failed", "retrying", "young"]);
    expect((await db.webhookAttempt.findMany({ where: { delivery: { endpointId: endpoint.id } } })).map((a) => a.deliveryId).sort()).toEqual([
      "whd_failed",
      "whd_retrying",
      "whd_young",
    ]);
    // The failed delivery is still in the log, with its attempt, and can be retried by hand.
    const log = await read(`/webhook-deliveries?endpoint_id=${endpoint.id}`);
    expect(log.webhook_deliveries.map((d: { id: string }) => d.id).sort()).toEqual(["whd_failed", "whd_retrying", "whd_young"]);
    expect((await t.api("POST", "/webhook-deliveries/whd_failed/retry", { key })).status).toBe(200);

    // 0 days keeps everything for ever.
    const keepAll = createRetentionPurger({ ...t.deps, config: { ...t.config, retentionDays: { events: 0, deliveries: 0 } } });
    t.clock.advance(400 * DAY);
    expect(await keepAll.runOnce()).toMatchObject({ deliveries: 0, events: 0 });
  });
});

describe("expiry in sets", () => {
  it("expires exactly the due payments, a batch at a time, each with one event carrying the payment and session as the API shows them", async () => {
    const create = async (path: string, minutes: number) => (await t.api("POST", path, { key, body: { amount: "1", expires_in_minutes: minutes } })).body;
    const due = [];
    for (let i = 0; i < 7; i++) due.push(await create("/payments", 5));
    const sessions = [await create("/checkout-sessions", 5), await create("/checkout-sessions", 5)];
    const later = await create("/payments", 10);
    const completed = await create("/payments", 5);
    expect((await t.api("POST", `/payments/${completed.id}/complete`, { key, body: {} })).status).toBe(200);

    const sweeper = createExpirySweeper(t.deps, { batchSize: 3 });
    t.clock.advance(5 * 60_000);
    // 7 payments and the 2 sessions' payments: three full batches, then an empty one
    expect(await sweeper.runOnce()).toBe(9);
    expect(await sweeper.runOnce()).toBe(0);

    for (const payment of due) {
      const shown = await read(`/payments/${payment.id}`);
      expect(shown.status).toBe("expired");
      const events = await eventsOf(payment.id);
      expect(events.map((e) => e.type)).toEqual(["payment.created", "payment.expired"]);
      expect(JSON.parse(events[1]!.data)).toEqual(shown);
    }
    for (const session of sessions) {
      const shown = await read(`/checkout-sessions/${session.id}`);
      expect(shown.status).toBe("expired");
      expect((await read(`/payments/${shown.payment_intent_id}`)).status).toBe("expired");
      const expiredEvents = (await eventsOf(session.id)).filter((e) => e.type === "checkout.session.expired");
      expect(expiredEvents).toHaveLength(1);
      expect(JSON.parse(expiredEvents[0]!.data)).toEqual(shown);
      expect((await eventsOf(shown.payment_intent_id)).filter((e) => e.type === "payment.expired")).toHaveLength(1);
    }
    expect((await read(`/payments/${later.id}`)).status).toBe("pending");
    expect((await read(`/payments/${completed.id}`)).status).toBe("completed");
    expect((await eventsOf(completed.id)).some((e) => e.type === "payment.expired")).toBe(false);
  });

  it("two sweepers on their own connections racing over 1,200 due payments expire each exactly once, with one event each", async () => {
    const prefix = await seedDuePayments(1200);
    const other = openDatabase(t.config.databaseUrl);
    afterAll(() => other.close());
    const first = createExpirySweeper(t.deps, { batchSize: 100 });
    const second = createExpirySweeper({ ...t.deps, db: other.db }, { batchSize: 100 });
    const [a, b] = await Promise.all([first.runOnce(), second.runOnce()]);
    expect(a + b).toBe(1200);
    expect(await db.payment.count({ where: { id: { startsWith: prefix }, status: "expired" } })).toBe(1200);
    const events = await db.event.groupBy({ by: ["resourceId"], where: { resourceId: { startsWith: prefix }, type: "payment.expired" }, _count: true });
    expect(events).toHaveLength(1200);
    expect(events.every((e) => e._count === 1)).toBe(true);
  });
});

describe("the idempotency purge", () => {
  it("deletes records past their 24 hours a chunk at a time, the oldest first, and keeps the fresh ones", async () => {
    const now = t.clock.now().getTime();
    const ages = Array.from({ length: 25 }, (_, i) => DAY + (25 - i) * 60_000); // oldest first
    for (const [i, age] of ages.entries()) {
      await claimIdempotencyKey(db, { apiKeyId: "key_purge", key: `old-${i}`, requestHash: "h", createdAt: new Date(now - age) });
    }
    await claimIdempotencyKey(db, { apiKeyId: "key_purge", key: "fresh", requestHash: "h", createdAt: new Date(now - DAY + 60_000) });
    const keys = async () => (await db.idempotencyRecord.findMany({ where: { apiKeyId: "key_purge" } })).map((r) => r.key).sort();

    expect(await deleteExpiredIdempotencyRecords(t.deps, 10)).toBe(10);
    expect(await keys()).toEqual([...Array.from({ length: 15 }, (_, i) => `old-${i + 10}`), "fresh"].sort());

    const purger = createRetentionPurger(t.deps, { chunkSize: 4 });
    expect((await purger.runOnce()).idempotencyRecords).toBe(15);
    expect(await keys()).toEqual(["fresh"]);
  });
});
