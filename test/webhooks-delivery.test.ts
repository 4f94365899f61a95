// Webhook delivery end to end: a real receiver on 127.0.0.1 (a private target: the operator's opt-in
// WEBHOOK_ALLOW_PRIVATE is on here, and its answers are never kept) checks every request with its
// own HMAC code and with the Standard Webhooks algorithm; retries follow the configured schedule on a test
// clock; crashes resend; several workers never double-send; a worker whose lease was taken over
// records nothing over the worker that took it.
import { createHmac, timingSafeEqual } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordEvent } from "../src/modules/events/events.service.ts";
import { deliveryBody } from "../src/webhooks/delivery-body.ts";
import { sendWebhookRequest } from "../src/webhooks/http-sender.ts";
import { WebhookDispatcher } from "../src/webhooks/dispatcher.ts";
import { type Merchant, type TestApp, dialect, startTestApp } from "./support/test-app.ts";
import { openDatabase } from "../src/db/client.ts";
import { Networks } from "@stellar/stellar-sdk";
import { paymentJsonSchema } from "../src/modules/payments/payments.view.ts";
import { type ReceivedWebhook, type WebhookReceiver, startWebhookReceiver } from "./support/webhook-receiver.ts";
import { subscribeSse } from "./support/sse.ts";
import { createApiKey, revokeApiKey } from "../src/modules/api-keys/api-keys.service.ts";

let t: TestApp;
let merchant: Merchant;
let receiver: WebhookReceiver;

beforeAll(async () => {
  t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: "true" } });
  merchant = await t.createMerchant();
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

const header = (r: ReceivedWebhook, name: string) => String(r.headers[name]);
const nowSeconds = () => Math.floor(t.clock.now().getTime() / 1000);

/** The receiver's own check of Service-Signature, written from the spec: which of `secrets` signed. */
function serviceSignatureSigners(r: ReceivedWebhook, secrets: string[]): string[] {
  const parts = header(r, "service-signature").split(",").map((p) => p.split("="));
  const t0 = Number(parts.find(([k]) => k === "t")![1]);
  expect(t0).toBe(Number(header(r, "service-timestamp")));
  expect(Math.abs(nowSeconds() - t0)).toBeLessThanOrEqual(300);
  const digests = parts.filter(([k]) => k === "v1").map(([, v]) => v!);
  return secrets.filter((secret) => {
    const expected = createHmac("sha256", secret).update(`${t0}.${r.rawBody}`).digest("hex");
    return digests.some((d) => d.length === expected.length && timingSafeEqual(Buffer.from(d), Buffer.from(expected)));
  });
}

/** Standard Webhooks verification (standardwebhooks.com spec): base64 HMAC of "id.timestamp.body", secret base64 after whsec_. */
function standardWebhooksSigners(r: ReceivedWebhook, secrets: string[]): string[] {
  const id = header(r, "webhook-id");
  const timestamp = header(r, "webhook-timestamp");
  expect(Math.abs(nowSeconds() - Number(timestamp))).toBeLessThanOrEqual(300);
  const signatures = header(r, "webhook-signature")
    .split(" ")
    .map((s) => s.split(","))
    .filter(([version]) => version === "v1")
    .map(([, sig]) => Buffer.from(sig!, "base64"));
  return secrets.filter((secret) => {
    const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
    const expected = createHmac("sha256", key).update(`${id}.${timestamp}.${r.rawBody}`).digest();
    return signatures.some((s) => s.length === expected.length && timingSafeEqual(s, expected));
  });
}

async function createEndpoint(path: string, events: string[] = ["*"], key = merchant.sandboxKey) {
  const res = await t.api("POST", "/webhook-endpoints", { key, body: { url: `${receiver.url}${path}`, enabled_events: events } });
  expect(res.status).toBe(201);
  return res.body as { id: string; secret: string };
}

async function createPayment(key = merchant.sandboxKey) {
  const res = await t.api("POST", "/payments", {
    key,
    body: { amount: "12.5", pricing_currency: "USD", pricing_amount: "3.10" },
  });
  expect(res.status).toBe(201);
  return res.body as { id: string };
}

const deliveriesOf = async (endpointId: string) =>
  (await t.api("GET", `/webhook-deliveries?endpoint_id=${endpointId}&limit=100`, { key: merchant.sandboxKey })).body
    .webhook_deliveries as any[];

describe("delivery", () => {
  it("sends each subscribed event once, signed per the spec and per Standard Webhooks, and logs it", async () => {
    const subscribed = await createEndpoint("/subscribed", ["payment.created"]);
    const other = await createEndpoint("/other", ["invoice.paid"]);
    const otherMerchant = await t.createMerchant();
    const res = await t.api("POST", "/webhook-endpoints", {
      key: otherMerchant.sandboxKey,
      body: { url: `${receiver.url}/other-merchant`, enabled_events: ["*"] },
    });
    expect(res.status).toBe(201);
    const payment = await createPayment();

    expect(await t.app.webhooks.runOnce()).toMatchObject({ sent: 1 });
    expect(receiver.at("/other")).toHaveLength(0);
    expect(receiver.at("/other-merchant")).toHaveLength(0);
    const [request] = receiver.at("/subscribed");
    expect(request).toBeDefined();
    expect(serviceSignatureSigners(request!, [subscribed.secret, other.secret])).toEqual([subscribed.secret]);
    expect(standardWebhooksSigners(request!, [subscribed.secret, other.secret])).toEqual([subscribed.secret]);
    expect(header(request!, "service-signature")).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(header(request!, "service-event")).toBe("payment.created");
    expect(header(request!, "content-type")).toBe("application/json");

    const body = JSON.parse(request!.rawBody);
    expect(Object.keys(body)).toEqual(["id", "event", "created_at", "data"]);
    expect(body.id).toMatch(/^evt_[0-9A-Za-z]{16,}$/);
    expect(body.event).toBe("payment.created");
    expect(body.data).toMatchObject({
      id: payment.id,
      object: "payment_intent",
      amount: "12.5000000",
      status: "pending",
      pricing_currency: "USD",
      pricing_amount: "3.1000000",
    });

    const deliveryId = header(request!, "service-delivery-id");
    expect(deliveryId).toMatch(/^whd_[0-9A-Za-z]{16,}$/);
    expect(header(request!, "webhook-id")).toBe(deliveryId);
    const log = await t.api("GET", `/webhook-deliveries/${deliveryId}`, { key: merchant.sandboxKey });
    expect(log.status).toBe(200);
    expect(log.body).toMatchObject({
      id: deliveryId,
      endpoint_id: subscribed.id,
      event_id: body.id,
      event: "payment.created",
      status: "succeeded",
      response_code: 200,
      attempt_count: 1,
      next_retry_at: null,
      request_payload: request!.rawBody,
      response_body: null,
      last_error: null,
      attempts: [{ number: 1, response_code: 200, error: null }],
    });
    expect(await deliveriesOf(other.id)).toEqual([]);
    // Nothing is left to do: a second run sends nothing again.
    expect(await t.app.webhooks.runOnce()).toEqual({ fannedOut: 0, sent: 0 });
  });

  it("delivers invoice and checkout session events to endpoints subscribed to them", async () => {
    const invoices = await createEndpoint("/invoices", ["invoice.paid", "checkout.session.completed"]);
    await t.database.db.$transaction(async (tx) => {
      const scope = { organizationId: merchant.organizationId, environment: "sandbox" };
      await recordEvent(tx, t.deps, scope, { type: "invoice.paid", resourceId: "inv_x", data: { id: "inv_x", object: "invoice" } });
      await recordEvent(tx, t.deps, scope, { type: "checkout.session.completed", resourceId: "cs_x", data: { id: "cs_x" } });
      await recordEvent(tx, t.deps, scope, { type: "invoice.voided", resourceId: "inv_y", data: { id: "inv_y" } });
    });
    await t.app.webhooks.runOnce();
    const received = receiver.at("/invoices").map((r) => JSON.parse(r.rawBody));
    expect(received.map((b) => b.event).sort()).toEqual(["checkout.session.completed", "invoice.paid"]);
    expect(received.find((b) => b.event === "invoice.paid").data).toEqual({ id: "inv_x", object: "invoice" });
    expect(await deliveriesOf(invoices.id)).toHaveLength(2);
  });

  it("sends a test event with sample payment data marked service_test, logged like live ones", async () => {
    const endpoint = await createEndpoint("/test-event", ["payment.completed"]);
    const res = await t.api("POST", `/webhook-endpoints/${endpoint.id}/test`, { key: merchant.sandboxKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ endpoint_id: endpoint.id, event: "webhook.test", status: "pending" });
    await t.app.webhooks.runOnce();
    const [request] = receiver.at("/test-event");
    expect(serviceSignatureSigners(request!, [endpoint.secret])).toEqual([endpoint.secret]);
    const body = JSON.parse(request!.rawBody);
    expect(body.event).toBe("webhook.test");
    expect(body.data).toMatchObject({ object: "payment_intent", metadata: { service_test: "true" } });
    expect(body.data).toHaveProperty("pricing_currency");
    expect(body.data).toHaveProperty("pricing_amount");
    // Built like every payment's event data: the same fields, payment instructions to the merchant's wallet included.
    expect(paymentJsonSchema.strict().parse(body.data)).toEqual(body.data);
    expect(body.data.payment_instructions).toMatchObject({
      destination: merchant.wallet.publicKey(),
      memo_type: "id",
      network_passphrase: Networks.TESTNET,
    });
    expect(body.data.payment_instructions.muxed_destination).toMatch(/^M/);
    const [logged] = await deliveriesOf(endpoint.id);
    expect(logged).toMatchObject({ id: res.body.id, event: "webhook.test", status: "succeeded", attempt_count: 1 });
  });
});

describe("retries", () => {
  it("gives a failing receiver exactly six attempts on the configured schedule, then fails; a manual retry repeats it", async () => {
    receiver.respond("/failing", { status: 500, body: "boom" });
    const endpoint = await createEndpoint("/failing", ["payment.created"]);
    await createPayment();
    await t.app.webhooks.runOnce();
    const schedule = t.config.webhookRetryDelaysSeconds;
    expect(schedule).toEqual([60, 300, 1800, 7200, 86400]);

    for (const [index, delaySeconds] of schedule.entries()) {
      let [delivery] = await deliveriesOf(endpoint.id);
      expect(delivery).toMatchObject({ status: "pending", attempt_count: index + 1, response_code: 500, response_body: null });
      const lastAttempt = delivery.attempts[index];
      expect(Date.parse(delivery.next_retry_at) - Date.parse(lastAttempt.started_at)).toBeGreaterThanOrEqual(delaySeconds * 1000);
      expect(Date.parse(delivery.next_retry_at) - Date.parse(lastAttempt.started_at)).toBeLessThan(delaySeconds * 1000 + 1000);
      // Not before its time...
      t.clock.advance(delaySeconds * 1000 - 2000);
      await t.app.webhooks.runOnce();
      expect(receiver.at("/failing")).toHaveLength(index + 1);
      // ...and at its time.
      t.clock.advance(2000);
      await t.app.webhooks.runOnce();
      expect(receiver.at("/failing")).toHaveLength(index + 2);
      [delivery] = await deliveriesOf(endpoint.id);
      expect(delivery.attempt_count).toBe(index + 2);
    }

    const [failed] = await deliveriesOf(endpoint.id);
    expect(failed).toMatchObject({
      status: "failed",
      attempt_count: 6,
      next_retry_at: null,
      response_code: 500,
      last_error: "Endpoint answered HTTP 500",
    });
    expect(failed.attempts.map((a: any) => [a.number, a.response_code])).toEqual([1, 2, 3, 4, 5, 6].map((n) => [n, 500]));
    t.clock.advance(7 * 24 * 3600 * 1000);
    await t.app.webhooks.runOnce();
    const requests = receiver.at("/failing");
    expect(requests).toHaveLength(6);
    // One delivery: same id and body every time, each signed afresh.
    expect(new Set(requests.map((r) => header(r, "service-delivery-id")))).toEqual(new Set([failed.id]));
    expect(new Set(requests.map((r) => r.rawBody)).size).toBe(1);
    expect(new Set(requests.map((r) => header(r, "service-timestamp"))).size).toBe(6);

    receiver.respond("/failing", 204);
    const retry = await t.api("POST", `/webhook-deliveries/${failed.id}/retry`, { key: merchant.sandboxKey });
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ status: "pending", attempt_count: 6 });
    await t.app.webhooks.runOnce();
    const [retried] = await deliveriesOf(endpoint.id);
    expect(retried).toMatchObject({ status: "succeeded", attempt_count: 7, response_code: 204, last_error: null });
    const last = receiver.at("/failing").at(-1)!;
    expect(serviceSignatureSigners(last, [endpoint.secret])).toEqual([endpoint.secret]);
  });

  it("counts a redirect as a failure and does not follow it", async () => {
    receiver.respond("/redirect", { status: 302, headers: { location: `${receiver.url}/redirect-target` } });
    const endpoint = await createEndpoint("/redirect", ["payment.created"]);
    await createPayment();
    await t.app.webhooks.runOnce();
    const [delivery] = await deliveriesOf(endpoint.id);
    expect(delivery).toMatchObject({ status: "pending", response_code: 302, last_error: "Endpoint answered HTTP 302" });
    expect(receiver.at("/redirect-target")).toHaveLength(0);
  });

  it("records a public receiver's answer that holds a NUL byte (PostgreSQL text cannot), and sends nothing twice", async () => {
    const own = await t.createMerchant();
    const endpoint = await createEndpoint("/nul", ["payment.created"], own.sandboxKey);
    await createPayment(own.sandboxKey);
    // The receivers here are private addresses, whose answers are never kept: this worker's sender
    // stands for a public receiver answering bytes that decode with a NUL.
    const sent: string[] = [];
    const worker = new WebhookDispatcher({
      ...t.deps,
      send: async (request) => {
        sent.push(request.url);
        return { status: 200, body: "ok\u0000binary" };
      },
    });
    await worker.runOnce();
    await worker.runOnce();
    const log = await t.api("GET", `/webhook-deliveries?endpoint_id=${endpoint.id}`, { key: own.sandboxKey });
    expect(log.body.webhook_deliveries).toMatchObject([{ status: "succeeded", response_code: 200, response_body: "ok\uFFFDbinary" }]);
    expect(sent).toHaveLength(1);
  });
});

describe("safety", () => {
  it("resends a delivery whose worker crashed between sending and recording", async () => {
    const endpoint = await createEndpoint("/crash", ["payment.created"]);
    await createPayment();
    // A worker that sends, then dies before recording anything.
    const doomed = new WebhookDispatcher({
      ...t.deps,
      send: async (request) => {
        await sendWebhookRequest(request);
        return new Promise(() => {});
      },
    });
    void doomed.runOnce();
    await receiver.waitFor("/crash", 1);
    const [claimed] = await t.database.db.webhookDelivery.findMany({ where: { endpointId: endpoint.id } });
    expect(claimed).toMatchObject({ status: "pending", attemptCount: 0 });
    expect(claimed!.leaseUntil!.getTime()).toBeGreaterThan(t.clock.now().getTime());

    // While the lease runs nobody else takes it...
    await t.app.webhooks.runOnce();
    expect(receiver.at("/crash")).toHaveLength(1);
    // ...once it lapses, it is sent again: same delivery, same body.
    t.clock.advance(t.config.webhookTimeoutMs + 31_000);
    await t.app.webhooks.runOnce();
    const requests = receiver.at("/crash");
    expect(requests).toHaveLength(2);
    expect(header(requests[1]!, "service-delivery-id")).toBe(header(requests[0]!, "service-delivery-id"));
    expect(requests[1]!.rawBody).toBe(requests[0]!.rawBody);
    const [delivery] = await deliveriesOf(endpoint.id);
    expect(delivery).toMatchObject({ status: "succeeded", attempt_count: 1 });
  });

  it("shares the work between several workers without sending anything twice", async () => {
    const endpoint = await createEndpoint("/shared", ["payment.created"]);
    for (let i = 0; i < 30; i++) await createPayment();
    const workers = [t.app.webhooks, new WebhookDispatcher(t.deps, { batchSize: 7 }), new WebhookDispatcher(t.deps, { batchSize: 5 })];
    for (let round = 0; round < 10; round++) await Promise.all(workers.map((w) => w.runOnce().catch(() => undefined)));
    const ids = receiver.at("/shared").map((r) => header(r, "service-delivery-id"));
    expect(ids).toHaveLength(30);
    expect(new Set(ids).size).toBe(30);
    const deliveries = await t.database.db.webhookDelivery.findMany({ where: { endpointId: endpoint.id } });
    expect(deliveries.map((d) => [d.status, d.attemptCount])).toEqual(Array(30).fill(["succeeded", 1]));
  });

  it("lets only the worker that took over a lapsed lease record the attempt, and still records the rest", async () => {
    const own = await t.createMerchant();
    const endpoint = await createEndpoint("/takeover", ["payment.created"], own.sandboxKey);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // A worker whose results stay unrecorded until the gate opens.
    const slow = new WebhookDispatcher({
      ...t.deps,
      send: async (request) => {
        const response = await sendWebhookRequest(request);
        await gate;
        return response;
      },
    });
    const lease = t.config.webhookTimeoutMs + 30_000;
    await createPayment(own.sandboxKey);
    const first = slow.runOnce();
    await receiver.waitFor("/takeover", 1);
    t.clock.advance(10_000);
    await createPayment(own.sandboxKey);
    const second = slow.runOnce();
    await receiver.waitFor("/takeover", 2);
    // The first lease has lapsed, the second has not: another worker takes over the first only.
    t.clock.advance(lease - 10_000 + 1000);
    await new WebhookDispatcher(t.deps).runOnce();
    const requests = receiver.at("/takeover");
    expect(requests).toHaveLength(3);
    const [takenOver, kept] = [header(requests[0]!, "service-delivery-id"), header(requests[1]!, "service-delivery-id")];
    expect(header(requests[2]!, "service-delivery-id")).toBe(takenOver);

    // Both late results are recorded as one group; one of its rows is no longer the slow worker's.
    release();
    await Promise.all([first, second]);
    const deliveries = await t.database.db.webhookDelivery.findMany({ where: { endpointId: endpoint.id }, include: { attempts: true } });
    expect(deliveries.map((d) => d.id).sort()).toEqual([takenOver, kept].sort());
    for (const delivery of deliveries) {
      expect(delivery).toMatchObject({ status: "succeeded", attemptCount: 1, leaseUntil: null, responseCode: 200 });
      expect(delivery.attempts.map((a) => a.number)).toEqual([1]);
    }
  });
});

describe("secret rotation", () => {
  it("signs with both secrets for 24 hours, then with the new one only", async () => {
    const endpoint = await createEndpoint("/rotation", ["payment.created"]);
    const rotated = await t.api("POST", `/webhook-endpoints/${endpoint.id}/rotate-secret`, { key: merchant.sandboxKey });
    expect(rotated.status).toBe(200);
    const newSecret: string = rotated.body.secret;
    expect(newSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(newSecret).not.toBe(endpoint.secret);

    await createPayment();
    await t.app.webhooks.runOnce();
    const [during] = receiver.at("/rotation");
    expect(header(during!, "service-signature")).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(serviceSignatureSigners(during!, [newSecret, endpoint.secret])).toEqual([newSecret, endpoint.secret]);
    expect(standardWebhooksSigners(during!, [newSecret, endpoint.secret])).toEqual([newSecret, endpoint.secret]);

    t.clock.advance(24 * 3600 * 1000 + 1000);
    await createPayment();
    await t.app.webhooks.runOnce();
    const after = receiver.at("/rotation")[1]!;
    expect(header(after, "service-signature")).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(serviceSignatureSigners(after, [newSecret, endpoint.secret])).toEqual([newSecret]);
    expect(standardWebhooksSigners(after, [newSecret, endpoint.secret])).toEqual([newSecret]);
  });
});

describe("events no endpoint takes", () => {
  it("are written fanned out already; an event an endpoint takes is left to the worker, which delivers it", async () => {
    const owner = await t.createMerchant();
    const fannedOutAt = async (paymentId: string) =>
      (await t.database.db.event.findFirstOrThrow({ where: { resourceId: paymentId, type: "payment.created" } })).fannedOutAt;
    const drain = async () => {
      while (Object.values(await t.app.webhooks.runOnce()).some((n) => n > 0));
    };
    await drain();

    const withoutEndpoints = await createPayment(owner.sandboxKey);
    expect(await fannedOutAt(withoutEndpoints.id)).not.toBeNull();

    // Endpoints that do not take payment.created: subscribed to other kinds, disabled, deleted.
    await createEndpoint("/untaken-other-kinds", ["payment.completed", "invoice.paid"], owner.sandboxKey);
    const disabled = await createEndpoint("/untaken-disabled", ["*"], owner.sandboxKey);
    await t.api("POST", `/webhook-endpoints/${disabled.id}`, { key: owner.sandboxKey, body: { enabled: false } });
    const deleted = await createEndpoint("/untaken-deleted", ["payment.created"], owner.sandboxKey);
    await t.api("DELETE", `/webhook-endpoints/${deleted.id}`, { key: owner.sandboxKey });
    // ... and one that takes every kind, in the other environment (written as it is: production takes https only)
    const now = new Date();
    await t.database.db.webhookEndpoint.create({
      data: { id: "we_untaken_production", organizationId: owner.organizationId, environment: "production", url: "https://example.test/hook", enabledEvents: '["*"]', secret: "whsec_test", createdAt: now, updatedAt: now },
    });
    const untaken = await createPayment(owner.sandboxKey);
    expect(await fannedOutAt(untaken.id)).not.toBeNull();

    await createEndpoint("/untaken-taker", ["payment.created"], owner.sandboxKey);
    const taken = await createPayment(owner.sandboxKey);
    expect(await fannedOutAt(taken.id)).toBeNull();
    await drain();
    expect(receiver.at("/untaken-taker").map((r) => JSON.parse(r.rawBody).data.id)).toEqual([taken.id]);
    for (const path of ["/untaken-other-kinds", "/untaken-disabled", "/untaken-deleted"]) expect(receiver.at(path), path).toEqual([]);
    expect(await fannedOutAt(taken.id)).not.toBeNull();

    // An endpoint that takes every kind takes payment.created.
    const everyKind = await t.createMerchant();
    await createEndpoint("/every-kind", ["*"], everyKind.sandboxKey);
    expect(await fannedOutAt((await createPayment(everyKind.sandboxKey)).id)).toBeNull();
  });
});

describe("fan-out at scale", () => {
  it("gives every endpoint each event it subscribed to exactly once, across cycles of many events", async () => {
    const owner = await t.createMerchant();
    const stranger = await t.createMerchant();
    const all = await createEndpoint("/many-all", ["*"], owner.sandboxKey);
    const created = await createEndpoint("/many-created", ["payment.created"], owner.sandboxKey);
    const paid = await createEndpoint("/many-paid", ["invoice.paid", "payment.completed"], owner.sandboxKey);
    const disabled = await createEndpoint("/many-disabled", ["*"], owner.sandboxKey);
    await t.api("POST", `/webhook-endpoints/${disabled.id}`, { key: owner.sandboxKey, body: { enabled: false } });
    const deleted = await createEndpoint("/many-deleted", ["*"], owner.sandboxKey);
    await t.api("DELETE", `/webhook-endpoints/${deleted.id}`, { key: owner.sandboxKey });
    const other = await createEndpoint("/many-other", ["*"], stranger.sandboxKey);

    const types = ["payment.created", "invoice.paid", "payment.completed"] as const;
    const events = await t.database.db.$transaction(async (tx) => {
      const recorded = [];
      for (let i = 0; i < 120; i++) {
        const scope = { organizationId: i % 10 === 9 ? stranger.organizationId : owner.organizationId, environment: "sandbox" };
        recorded.push(await recordEvent(tx, t.deps, scope, { type: types[i % 3]!, resourceId: `pay_${i}`, data: { n: i } }));
      }
      return recorded;
      // 120 inserts one by one: more than Prisma's default 5 s when the machine is busy.
    }, { timeout: 60_000 });
    const worker = new WebhookDispatcher(t.deps, { batchSize: 25 });
    for (;;) {
      const { fannedOut, sent } = await worker.runOnce();
      if (fannedOut === 0 && sent === 0) break;
    }

    const ownEvents = events.filter((e) => e.organizationId === owner.organizationId);
    const expected = {
      "/many-all": ownEvents,
      "/many-created": ownEvents.filter((e) => e.type === "payment.created"),
      "/many-paid": ownEvents.filter((e) => e.type !== "payment.created"),
      "/many-other": events.filter((e) => e.organizationId === stranger.organizationId),
      "/many-disabled": [],
      "/many-deleted": [],
    };
    for (const [path, wanted] of Object.entries(expected)) {
      const bodies = receiver.at(path).map((r) => r.rawBody);
      expect(bodies.sort(), path).toEqual(wanted.map((e) => deliveryBody(e)).sort());
    }
    const counts = await t.database.db.webhookDelivery.groupBy({
      by: ["endpointId", "status", "attemptCount"],
      where: { endpointId: { in: [all.id, created.id, paid.id, disabled.id, deleted.id, other.id] } },
      _count: true,
    });
    expect(counts.map((c) => [c.endpointId, c.status, c.attemptCount, c._count]).sort()).toEqual(
      [
        [all.id, "succeeded", 1, 108],
        [created.id, "succeeded", 1, 36],
        [paid.id, "succeeded", 1, 72],
        [other.id, "succeeded", 1, 12],
      ].sort(),
    );
  });

  it("fails a delivery without sending it once its endpoint is disabled or deleted", async () => {
    const disabled = await createEndpoint("/later-disabled", ["payment.created"]);
    const deleted = await createEndpoint("/later-deleted", ["payment.created"]);
    receiver.respond("/later-disabled", 500);
    receiver.respond("/later-deleted", 500);
    await createPayment();
    await t.app.webhooks.runOnce();
    await t.api("POST", `/webhook-endpoints/${disabled.id}`, { key: merchant.sandboxKey, body: { enabled: false } });
    await t.api("DELETE", `/webhook-endpoints/${deleted.id}`, { key: merchant.sandboxKey });
    t.clock.advance(t.config.webhookRetryDelaysSeconds[0]! * 1000);
    await t.app.webhooks.runOnce();

    expect(receiver.at("/later-disabled")).toHaveLength(1);
    expect(receiver.at("/later-deleted")).toHaveLength(1);
    for (const [endpoint, reason] of [
      [disabled, "Endpoint is disabled"],
      [deleted, "Endpoint was deleted"],
    ] as const) {
      const [delivery] = await t.database.db.webhookDelivery.findMany({ where: { endpointId: endpoint.id }, include: { attempts: true } });
      expect(delivery).toMatchObject({ status: "failed", attemptCount: 1, nextRetryAt: null, leaseUntil: null, lastError: reason });
      expect(delivery!.attempts).toHaveLength(1);
    }
  });

  it("keeps up with a burst of writes while running, woken by each, with little room in flight", async () => {
    const own = await t.createMerchant();
    const endpoint = await createEndpoint("/burst", ["payment.created"], own.sandboxKey);
    // Polling so slow that only wakes (and finished sends making room) can drive it.
    const worker = new WebhookDispatcher(t.deps, { pollMs: 3_600_000, batchSize: 3, maxInFlight: 2 });
    worker.start();
    try {
      await Promise.all(
        Array.from({ length: 20 }, async () => {
          await createPayment(own.sandboxKey);
          worker.wake();
        }),
      );
      await receiver.waitFor("/burst", 20);
    } finally {
      await worker.stop();
    }
    const ids = receiver.at("/burst").map((r) => header(r, "service-delivery-id"));
    expect(ids).toHaveLength(20);
    expect(new Set(ids).size).toBe(20);
    const deliveries = await t.database.db.webhookDelivery.findMany({ where: { endpointId: endpoint.id } });
    expect(deliveries.map((d) => [d.status, d.attemptCount])).toEqual(Array(20).fill(["succeeded", 1]));
  });
});

describe("manual attempts (Retry now, Resend)", () => {
  const retry = (id: string) => t.api("POST", `/webhook-deliveries/${id}/retry`, { key: merchant.sandboxKey });

  it("makes a pending delivery's attempt at once and leaves the automatic schedule's next time and count as they were", async () => {
    receiver.respond("/manual-pending", { status: 503, body: "" });
    const endpoint = await createEndpoint("/manual-pending", ["payment.created"]);
    await createPayment();
    await t.app.webhooks.runOnce();
    const [first] = await deliveriesOf(endpoint.id);
    expect(first).toMatchObject({ status: "pending", attempt_count: 1 });
    const scheduled = first.next_retry_at;

    // Retry now, long before the schedule's 60 s: sent in this cycle.
    const asked = await retry(first.id);
    expect(asked.status).toBe(200);
    expect(asked.body).toMatchObject({ status: "pending", attempt_count: 1, next_retry_at: scheduled });
    await t.app.webhooks.runOnce();
    expect(receiver.at("/manual-pending")).toHaveLength(2);
    const [afterManual] = await deliveriesOf(endpoint.id);
    expect(afterManual).toMatchObject({ status: "pending", attempt_count: 2, next_retry_at: scheduled, response_code: 503 });
    expect(afterManual.attempts.map((a: any) => [a.number, a.manual])).toEqual([
      [1, false],
      [2, true],
    ]);

    // The schedule goes on from its own count: the next automatic attempt is its second, 300 s after.
    t.clock.advance(Date.parse(scheduled) - t.clock.now().getTime());
    await t.app.webhooks.runOnce();
    const [afterAutomatic] = await deliveriesOf(endpoint.id);
    expect(afterAutomatic).toMatchObject({ status: "pending", attempt_count: 3 });
    expect(afterAutomatic.attempts[2].manual).toBe(false);
    expect(Date.parse(afterAutomatic.next_retry_at) - Date.parse(afterAutomatic.attempts[2].started_at)).toBeGreaterThanOrEqual(300_000);
    expect(Date.parse(afterAutomatic.next_retry_at) - Date.parse(afterAutomatic.attempts[2].started_at)).toBeLessThan(301_000);

    // A manual attempt that succeeds ends the schedule.
    receiver.respond("/manual-pending", 200);
    expect((await retry(first.id)).status).toBe(200);
    await t.app.webhooks.runOnce();
    const [done] = await deliveriesOf(endpoint.id);
    expect(done).toMatchObject({ status: "succeeded", attempt_count: 4, next_retry_at: null, response_code: 200 });
    t.clock.advance(7 * 24 * 3600 * 1000);
    await t.app.webhooks.runOnce();
    expect(receiver.at("/manual-pending")).toHaveLength(4);
  });

  it("keeps a failed delivery failed when its manual attempt fails, with no automatic attempt added", async () => {
    receiver.respond("/manual-failed", { status: 500, body: "" });
    const endpoint = await createEndpoint("/manual-failed", ["payment.created"]);
    await createPayment();
    await t.app.webhooks.runOnce();
    for (const delay of t.config.webhookRetryDelaysSeconds) {
      t.clock.advance(delay * 1000);
      await t.app.webhooks.runOnce();
    }
    const [failed] = await deliveriesOf(endpoint.id);
    expect(failed).toMatchObject({ status: "failed", attempt_count: 6, next_retry_at: null });
    expect((await retry(failed.id)).body).toMatchObject({ status: "pending" });
    await t.app.webhooks.runOnce();
    const [still] = await deliveriesOf(endpoint.id);
    expect(still).toMatchObject({ status: "failed", attempt_count: 7, next_retry_at: null });
    expect(still.attempts.at(-1).manual).toBe(true);
    t.clock.advance(7 * 24 * 3600 * 1000);
    await t.app.webhooks.runOnce();
    expect(receiver.at("/manual-failed")).toHaveLength(7);
  });

  it("makes one attempt in all for many Retry now requests at once (repeated), each answered 200", async () => {
    receiver.respond("/manual-race", { status: 500, body: "" });
    const endpoint = await createEndpoint("/manual-race", ["payment.created"]);
    await createPayment();
    await t.app.webhooks.runOnce();
    const [delivery] = await deliveriesOf(endpoint.id);
    for (let round = 1; round <= 10; round++) {
      const answers = await Promise.all(Array.from({ length: 8 }, () => retry(delivery.id)));
      expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
      await t.app.webhooks.runOnce();
      await t.app.webhooks.runOnce();
      expect(receiver.at("/manual-race")).toHaveLength(1 + round);
      const [now] = await deliveriesOf(endpoint.id);
      expect(now).toMatchObject({ status: "pending", attempt_count: 1 + round });
    }
  });

  it("resends any event to an endpoint that subscribes to it, lists events with their deliveries, and refuses the rest", async () => {
    const own = await t.createMerchant();
    const payment = await createPayment(own.sandboxKey);
    // Created after the event: it never had it.
    const later = await createEndpoint("/resend-later", ["payment.created"], own.sandboxKey);
    const other = await createEndpoint("/resend-other", ["invoice.paid"], own.sandboxKey);
    await t.app.webhooks.runOnce();
    expect(receiver.at("/resend-later")).toHaveLength(0);

    const events = await t.graphql(
      `query($type: String) { webhookEvents(first: 10, type: $type) { edges { node { id type resourceId payload deliveries { id } } } } }`,
      { type: "payment.created" },
      own.sandboxKey,
    );
    const [event] = events.body.data.webhookEvents.edges.map((e: any) => e.node);
    expect(event).toMatchObject({ type: "payment.created", resourceId: payment.id, deliveries: [] });
    expect(JSON.parse(event.payload)).toMatchObject({ id: event.id, event: "payment.created", data: { id: payment.id } });
    const none = await t.graphql(`{ webhookEvents(first: 10, type: "invoice.paid") { edges { node { id } } } }`, {}, own.sandboxKey);
    expect(none.body.data.webhookEvents.edges).toEqual([]);

    const refused = await t.api("POST", `/webhook-endpoints/${other.id}/resend`, { key: own.sandboxKey, body: { event_id: event.id } });
    expect(refused).toMatchObject({ status: 409, body: { error: "Endpoint does not subscribe to payment.created" } });
    const bad = await t.api("POST", `/webhook-endpoints/${later.id}/resend`, { key: own.sandboxKey, body: {} });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/event_id/);
    const foreign = await t.api("POST", `/webhook-endpoints/${later.id}/resend`, { key: merchant.sandboxKey, body: { event_id: event.id } });
    expect(foreign.status).toBe(404);

    const resent = await t.graphql(
      `mutation($e: ID!, $w: ID!) { resendWebhookEvent(eventId: $e, endpointId: $w) { id status attemptCount } }`,
      { e: event.id, w: later.id },
      own.sandboxKey,
    );
    expect(resent.body.data.resendWebhookEvent).toMatchObject({ status: "pending", attemptCount: 0 });
    await t.app.webhooks.runOnce();
    const [sent] = receiver.at("/resend-later");
    expect(JSON.parse(sent!.rawBody)).toMatchObject({ id: event.id, data: { id: payment.id } });

    // Resend of a delivered event: one more (manual) attempt on its delivery.
    const again = await t.api("POST", `/webhook-endpoints/${later.id}/resend`, { key: own.sandboxKey, body: { event_id: event.id } });
    expect(again).toMatchObject({ status: 200, body: { id: resent.body.data.resendWebhookEvent.id, status: "pending", attempt_count: 1 } });
    await t.app.webhooks.runOnce();
    expect(receiver.at("/resend-later")).toHaveLength(2);
    const listed = await t.graphql(
      `{ webhookEvents(first: 10) { edges { node { id deliveries { status attemptCount attempts { number manual } } } } } }`,
      {},
      own.sandboxKey,
    );
    const node = listed.body.data.webhookEvents.edges.map((e: any) => e.node).find((n: any) => n.id === event.id);
    expect(node.deliveries).toEqual([
      { status: "succeeded", attemptCount: 2, attempts: [{ number: 1, manual: false }, { number: 2, manual: true }] },
    ]);
  });
});

describe("the live delivery log (webhookDeliveryChanges)", () => {
  const watch = (endpointId: string | null, key: string) =>
    subscribeSse(
      t.url,
      `subscription($e: ID) { webhookDeliveryChanges(endpointId: $e) { id status attemptCount attempts { number responseCode manual } } }`,
      { e: endpointId },
      { authorization: `Bearer ${key}` },
    );

  it("pushes each change of the scope's deliveries (test event, attempt, Retry now) and nothing of another endpoint or merchant", async () => {
    receiver.respond("/live", { status: 500, body: "" });
    const endpoint = await createEndpoint("/live", ["payment.created"]);
    const other = await createEndpoint("/live-other", ["payment.created"]);
    const stranger = await t.createMerchant();
    const mine = await watch(endpoint.id, merchant.sandboxKey);
    const theirs = await watch(null, stranger.sandboxKey);
    expect(mine.status).toBe(200);
    // The stream is open once its first frame could come: give the server a moment to subscribe.
    await new Promise((resolve) => setTimeout(resolve, 200));

    const test = await t.api("POST", `/webhook-endpoints/${endpoint.id}/test`, { key: merchant.sandboxKey });
    const pushed = async (matches: (d: any) => boolean) => {
      for (;;) {
        const frame = await mine.next(5000);
        const delivery = frame.data.webhookDeliveryChanges;
        expect(delivery.id).toBe(test.body.id);
        if (matches(delivery)) return delivery;
      }
    };
    expect(await pushed((d) => d.status === "pending" && d.attemptCount === 0)).toMatchObject({ attempts: [] });
    await t.app.webhooks.runOnce();
    expect(await pushed((d) => d.attemptCount === 1)).toMatchObject({ status: "pending", attempts: [{ number: 1, responseCode: 500, manual: false }] });

    receiver.respond("/live", 204);
    expect((await t.api("POST", `/webhook-deliveries/${test.body.id}/retry`, { key: merchant.sandboxKey })).status).toBe(200);
    await t.app.webhooks.runOnce();
    expect(await pushed((d) => d.attemptCount === 2)).toMatchObject({
      status: "succeeded",
      attempts: [{ number: 1 }, { number: 2, responseCode: 204, manual: true }],
    });

    // Another endpoint's delivery is not this log's; another merchant hears nothing.
    await t.api("POST", `/webhook-endpoints/${other.id}/test`, { key: merchant.sandboxKey });
    await t.app.webhooks.runOnce();
    await expect(mine.next(500)).rejects.toThrow();
    await expect(theirs.next(300)).rejects.toThrow();
    mine.close();
    theirs.close();
  });

  it("hears a worker of another process on PostgreSQL (its NOTIFY at commit); SQLite is one process", async () => {
    receiver.respond("/live-other-process", 200);
    const own = await t.createMerchant();
    const endpoint = await createEndpoint("/live-other-process", ["payment.created"], own.sandboxKey);
    const sub = await watch(endpoint.id, own.sandboxKey);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await createPayment(own.sandboxKey);
    // A worker with a database client of its own, as in another process: nothing it announces in
    // process reaches this app's open logs.
    const elsewhere = openDatabase(t.config.databaseUrl);
    try {
      const worker = new WebhookDispatcher({ ...t.deps, db: elsewhere.db });
      await worker.runOnce();
      expect(receiver.at("/live-other-process")).toHaveLength(1);
      if (dialect === "postgresql") {
        expect((await sub.next(5000)).data.webhookDeliveryChanges).toMatchObject({ status: "succeeded", attemptCount: 1 });
      } else {
        await expect(sub.next(1000)).rejects.toThrow();
      }
    } finally {
      sub.close();
      await elsewhere.close();
    }
  });

  it("ends with UNAUTHENTICATED once its key is revoked, and pushes nothing after", async () => {
    const endpoint = await createEndpoint("/live-revoked", ["payment.created"]);
    const revoking = await createApiKey(t.deps, { organizationId: merchant.organizationId, environment: "sandbox" });
    const sub = await watch(endpoint.id, revoking);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const sent = await t.api("POST", `/webhook-endpoints/${endpoint.id}/test`, { key: merchant.sandboxKey });
    expect((await sub.next(5000)).data.webhookDeliveryChanges.id).toBe(sent.body.id);

    await revokeApiKey(t.deps, { prefix: revoking.slice(0, "pk_test_".length + 8) });
    await t.app.webhooks.runOnce();
    const revokedAt = Date.now();
    const last = await sub.next(3000);
    expect(last).toEqual({ data: null, errors: [expect.objectContaining({ message: "Unauthorized", extensions: { code: "UNAUTHENTICATED" } })] });
    await expect(sub.next(3000)).rejects.toThrow(/ended|complete/);
    expect(Date.now() - revokedAt).toBeLessThan(2500);
    sub.close();
  });
});
