// The stores of the outbox, the webhook endpoints and deliveries and the idempotency records: their
// typed prepared readers must read exactly what Prisma reads, their writes must read back through
// Prisma as written, and "due for delivery" must be one rule for the worker and the manual retry.
// On PostgreSQL, the live feed must be woken by the migration's NOTIFY trigger, with no poll.
import { expect, it } from "vitest";
import { typedSql } from "../src/db/client.ts";
import { createEventFeed } from "../src/modules/events/events.feed.ts";
import { recordEvent } from "../src/modules/events/events.service.ts";
import {
  eventSeqsAfter,
  newestEventSeq,
  newestEventSeqIn,
  outboxEventsAfter,
  paymentEventsOfScopeAfter,
} from "../src/modules/events/events.store.ts";
import {
  claimIdempotencyKey,
  deleteIdempotencyRecordsBefore,
  findIdempotencyRecord,
  storeIdempotentAnswer,
} from "../src/modules/idempotency/idempotency.store.ts";
import {
  claimDueDeliveriesStatement,
  claimedDeliveryRows,
  insertDeliveriesStatement,
  askForManualAttempt,
  webhookWorkWaiting,
} from "../src/modules/webhook-deliveries/webhook-deliveries.store.ts";
import { endpointRows, liveEndpointsOfStatement } from "../src/modules/webhook-endpoints/webhook-endpoints.store.ts";
import { dialect, startTestAppWithMerchant } from "./support/test-app.ts";

// No workers: fan-out and claims happen only when a test makes them.
const { t, merchant } = await startTestAppWithMerchant();
const db = t.database.db;
const scope = { organizationId: merchant.organizationId, environment: "sandbox" as const };
const outboxColumns = { seq: true, id: true, organizationId: true, environment: true, type: true, resourceId: true, data: true, createdAt: true } as const;

async function createPayment() {
  const res = await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "1.5" } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function createEndpoint(events: string[] = ["*"]) {
  const res = await t.api("POST", "/webhook-endpoints", { key: merchant.sandboxKey, body: { url: "https://example.com/hook", enabled_events: events } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

it("reads the outbox as Prisma does: newest seq, seqs, rows after a seq or in gaps, a scope's payment events", async () => {
  await createPayment();
  await createPayment();
  await db.$transaction((tx) => recordEvent(tx, t.deps, scope, { type: "invoice.paid", resourceId: "inv_x", data: { id: "inv_x" } }));
  await createPayment();
  const other = await t.createMerchant();
  await t.api("POST", "/payments", { key: other.sandboxKey, body: { amount: "2" } });

  const all = await db.event.findMany({ orderBy: { seq: "asc" }, select: outboxColumns });
  expect(all.length).toBeGreaterThanOrEqual(5);
  const seqs = all.map((e) => e.seq);
  expect(await newestEventSeq(db)).toBe(seqs.at(-1));
  expect((await eventSeqsAfter(db, seqs[1]!)).sort((a, b) => a - b)).toEqual(seqs.slice(2));

  // After the third, plus the first as a gap being re-read.
  const viaPrisma = await db.event.findMany({
    where: { OR: [{ seq: { gt: seqs[2]! } }, { seq: { in: [seqs[0]!] } }] },
    orderBy: { seq: "asc" },
    take: 1000,
    select: outboxColumns,
  });
  expect(await outboxEventsAfter(db, seqs[2]!, [seqs[0]!], 1000)).toEqual(viaPrisma);
  expect(await outboxEventsAfter(db, seqs[2]!, [], 2)).toEqual(viaPrisma.filter((e) => e.seq > seqs[2]!).slice(0, 2));

  const newestOfScope = (await db.event.aggregate({ where: scope, _max: { seq: true } }))._max.seq;
  expect(await newestEventSeqIn(db, scope)).toBe(newestOfScope);
  expect(await newestEventSeqIn(db, { organizationId: "org_none", environment: "sandbox" })).toBe(0);
  const paymentEvents = await db.event.findMany({ where: { ...scope, seq: { gt: seqs[0]! }, type: { startsWith: "payment." } }, orderBy: { seq: "asc" } });
  expect(paymentEvents.length).toBeGreaterThanOrEqual(2);
  expect(await paymentEventsOfScopeAfter(db, scope, seqs[0]!, 1000)).toEqual(paymentEvents);
});

it("reads the live endpoints of organizations as Prisma does: enabled and not deleted", async () => {
  const live = await createEndpoint();
  const disabled = await createEndpoint();
  const deleted = await createEndpoint();
  expect((await t.api("POST", `/webhook-endpoints/${disabled}`, { key: merchant.sandboxKey, body: { enabled: false } })).status).toBe(200);
  expect((await t.api("DELETE", `/webhook-endpoints/${deleted}`, { key: merchant.sandboxKey })).status).toBe(200);
  const sql = typedSql(db);
  const [result] = await sql.direct.batch([liveEndpointsOfStatement(sql, [merchant.organizationId, "org_none"])]);
  const viaTyped = endpointRows(sql, result!.rows).sort((a, b) => a.id.localeCompare(b.id));
  const viaPrisma = await db.webhookEndpoint.findMany({ where: { organizationId: merchant.organizationId, enabled: true, deletedAt: null }, orderBy: { id: "asc" } });
  expect(viaTyped).toEqual(viaPrisma);
  expect(viaTyped.map((e) => e.id)).toContain(live);
  expect(viaTyped.map((e) => e.id)).not.toContain(disabled);
  expect(viaTyped.map((e) => e.id)).not.toContain(deleted);
});

it("due for delivery is one rule: at the instant a lease runs out, the worker may claim the delivery and a manual retry may make it due", async () => {
  const endpointId = await createEndpoint(["payment.created"]);
  const paymentId = await createPayment();
  const event = (await db.event.findFirst({ where: { resourceId: paymentId } }))!;
  const sql = typedSql(db);
  const createdAt = new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678));
  const delivery = { id: `whd_due_${dialect}`, ...scope, endpointId, eventId: event.id, eventType: event.type, requestPayload: "{}", createdAt };
  await sql.direct.batch([insertDeliveriesStatement(sql, [delivery])]);
  const stored = await db.webhookDelivery.findUnique({ where: { id: delivery.id } });
  expect(stored).toMatchObject({ ...delivery, status: "pending", attemptCount: 0, nextRetryAt: createdAt, updatedAt: createdAt, leaseUntil: null });

  // A worker holds it until `leaseEnd`.
  const leaseEnd = new Date(createdAt.getTime() + 60_000);
  await db.webhookDelivery.update({ where: { id: delivery.id }, data: { leaseUntil: leaseEnd } });
  const justBefore = new Date(leaseEnd.getTime() - 1);
  expect((await webhookWorkWaiting(sql, justBefore)).due).toBe(false);
  expect(await askForManualAttempt(db, delivery.id, justBefore)).toBe(false);
  const [none] = await sql.direct.batch([claimDueDeliveriesStatement(sql, justBefore, leaseEnd, 10)]);
  expect(claimedDeliveryRows(sql, none!.rows)).toEqual([]);

  // At the very instant it runs out, both the worker's check and the manual retry agree: it is free.
  expect((await webhookWorkWaiting(sql, leaseEnd)).due).toBe(true);
  expect(await askForManualAttempt(db, delivery.id, leaseEnd)).toBe(true);
  const newLease = new Date(leaseEnd.getTime() + 60_000);
  const [claimed] = await sql.direct.batch([claimDueDeliveriesStatement(sql, leaseEnd, newLease, 10)]);
  const rows = claimedDeliveryRows(sql, claimed!.rows);
  expect(rows.map((d) => d.id)).toContain(delivery.id);
  expect(rows.find((d) => d.id === delivery.id)).toEqual(await db.webhookDelivery.findUnique({ where: { id: delivery.id } }));
  expect(rows.find((d) => d.id === delivery.id)!.leaseUntil).toEqual(newLease);
});

it("stores idempotency records as Prisma reads them, and purges those created before a cutoff", async () => {
  const createdAt = new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678));
  const key = { apiKeyId: `key_${dialect}`, key: "k1" };
  expect(await claimIdempotencyKey(db, { ...key, requestHash: "h1", createdAt })).toBe(true);
  expect(await claimIdempotencyKey(db, { ...key, requestHash: "h2", createdAt })).toBe(false);
  await storeIdempotentAnswer(db, key, 201, '{"id":"x"}');
  const viaPrisma = await db.idempotencyRecord.findUnique({ where: { apiKeyId_key: key } });
  expect(viaPrisma).toEqual({ ...key, requestHash: "h1", statusCode: 201, responseBody: '{"id":"x"}', createdAt });
  expect(await findIdempotencyRecord(db, key)).toEqual(viaPrisma);
  expect(await deleteIdempotencyRecordsBefore(db, createdAt, 10)).toBe(0);
  expect(await deleteIdempotencyRecordsBefore(db, new Date(createdAt.getTime() + 1), 10)).toBe(1);
  expect(await findIdempotencyRecord(db, key)).toBeNull();
});

if (dialect === "postgresql") {
  it("wakes the live feed through the migration's NOTIFY trigger when an event commits, without waiting for a poll", async () => {
    const feed = createEventFeed(t.deps, { pollIntervalMs: 60_000 });
    try {
      const received: string[] = [];
      let arrived: () => void;
      const arrival = new Promise<void>((resolve) => (arrived = resolve));
      await feed.listen((event) => {
        received.push(event.resourceId);
        if (event.resourceId === "pay_notified") arrived();
      });
      const started = Date.now();
      await db.$transaction((tx) => recordEvent(tx, t.deps, scope, { type: "payment.created", resourceId: "pay_notified", data: {} }));
      await Promise.race([arrival, new Promise((_, reject) => setTimeout(() => reject(new Error("no wake-up within 5 s")), 5000))]);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(received).toEqual(["pay_notified"]);
    } finally {
      await feed.stop();
    }
  });
}
