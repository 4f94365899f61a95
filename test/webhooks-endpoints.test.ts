// Webhook endpoints over REST and GraphQL, and the delivery log over GraphQL. The receiver is on
// 127.0.0.1, so this app allows private targets (WEBHOOK_ALLOW_PRIVATE); the guard itself is tested
// in webhooks-ssrf.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";
import { type WebhookReceiver, startWebhookReceiver } from "./support/webhook-receiver.ts";

let t: TestApp;
let merchant: Merchant;
let receiver: WebhookReceiver;

beforeAll(async () => {
  t = await startTestApp({ env: { WEBHOOK_TIMEOUT_MS: "300", WEBHOOK_ALLOW_PRIVATE: "true" } });
  merchant = await t.createMerchant();
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

const MASKED = /^whsec_[A-Za-z0-9+/]{4}…[A-Za-z0-9+/=]{4}$/;

describe("REST /webhook-endpoints", () => {
  it("creates (secret in full, once), reads masked, lists, updates, rotates and deletes", async () => {
    const key = merchant.sandboxKey;
    const created = await t.api("POST", "/webhook-endpoints", {
      key,
      body: { url: `${receiver.url}/crud`, enabled_events: ["payment.completed", "payment.failed"], description: "orders" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      object: "webhook_endpoint",
      url: `${receiver.url}/crud`,
      enabled_events: ["payment.completed", "payment.failed"],
      enabled: true,
      description: "orders",
    });
    expect(created.body.id).toMatch(/^we_[0-9A-Za-z]{16,}$/);
    const secret: string = created.body.secret;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), "base64")).toHaveLength(32);

    const read = await t.api("GET", `/webhook-endpoints/${created.body.id}`, { key });
    expect(read.status).toBe(200);
    expect(read.body.secret).toMatch(MASKED);
    expect(read.body.secret).toBe(`whsec_${secret.slice(6, 10)}…${secret.slice(-4)}`);
    expect(read.raw).not.toContain(secret.slice(6));

    const list = await t.api("GET", "/webhook-endpoints", { key });
    expect(list.status).toBe(200);
    expect(list.body.has_more).toBe(false);
    expect(list.body.webhook_endpoints.map((e: any) => e.id)).toContain(created.body.id);
    expect(list.body.webhook_endpoints.every((e: any) => MASKED.test(e.secret))).toBe(true);

    const updated = await t.api("POST", `/webhook-endpoints/${created.body.id}`, {
      key,
      body: { enabled_events: ["*"], enabled: false },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ enabled_events: ["*"], enabled: false, url: `${receiver.url}/crud` });

    const rotated = await t.api("POST", `/webhook-endpoints/${created.body.id}/rotate-secret`, { key });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated.body.secret).not.toBe(secret);
    expect(Date.parse(rotated.body.previous_secret_expires_at) - t.clock.now().getTime()).toBeGreaterThan(23.9 * 3600 * 1000);

    const deleted = await t.api("DELETE", `/webhook-endpoints/${created.body.id}`, { key });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ id: created.body.id, object: "webhook_endpoint", deleted: true });
    expect((await t.api("GET", `/webhook-endpoints/${created.body.id}`, { key })).status).toBe(404);
  });

  it("refuses unknown event kinds and bad URLs, naming the field", async () => {
    const key = merchant.sandboxKey;
    const badEvent = await t.api("POST", "/webhook-endpoints", { key, body: { url: `${receiver.url}/x`, enabled_events: ["payment.paid"] } });
    expect(badEvent.status).toBe(400);
    expect(badEvent.body.error).toMatch(/^enabled_events\[0\] must be one of payment\.created/);
    const mixed = await t.api("POST", "/webhook-endpoints", { key, body: { url: `${receiver.url}/x`, enabled_events: ["*", "payment.created"] } });
    expect(mixed.status).toBe(400);
    expect(mixed.body).toEqual({ error: 'enabled_events must be ["*"] or a list of event kinds' });
    const badUrl = await t.api("POST", "/webhook-endpoints", { key, body: { url: "ftp://example.com", enabled_events: ["*"] } });
    expect(badUrl).toMatchObject({ status: 400, body: { error: "url must be an http or https URL" } });
    const missing = await t.api("POST", "/webhook-endpoints", { key, body: { url: `${receiver.url}/x` } });
    expect(missing).toMatchObject({ status: 400, body: { error: "enabled_events is required" } });
  });

  it("keeps endpoints and deliveries to their organization and environment", async () => {
    const created = await t.api("POST", "/webhook-endpoints", {
      key: merchant.sandboxKey,
      body: { url: `${receiver.url}/mine`, enabled_events: ["*"] },
    });
    const stranger = await t.createMerchant();
    for (const key of [stranger.sandboxKey, merchant.liveKey]) {
      expect((await t.api("GET", `/webhook-endpoints/${created.body.id}`, { key })).status).toBe(404);
      expect((await t.api("POST", `/webhook-endpoints/${created.body.id}/test`, { key })).status).toBe(404);
    }
    const test = await t.api("POST", `/webhook-endpoints/${created.body.id}/test`, { key: merchant.sandboxKey });
    expect((await t.api("GET", `/webhook-deliveries/${test.body.id}`, { key: stranger.sandboxKey })).body).toEqual({ error: "Not found" });
    expect((await t.api("POST", `/webhook-deliveries/${test.body.id}/retry`, { key: stranger.sandboxKey })).status).toBe(404);
  });

  it("stops delivering to a disabled endpoint", async () => {
    const key = merchant.sandboxKey;
    const endpoint = await t.api("POST", "/webhook-endpoints", { key, body: { url: `${receiver.url}/disabled`, enabled_events: ["*"] } });
    await t.api("POST", `/webhook-endpoints/${endpoint.body.id}`, { key, body: { enabled: false } });
    await t.api("POST", "/payments", { key, body: { amount: "1" } });
    await t.app.webhooks.runOnce();
    expect(receiver.at("/disabled")).toHaveLength(0);
    const log = await t.api("GET", `/webhook-deliveries?endpoint_id=${endpoint.body.id}`, { key });
    expect(log.body).toEqual({ webhook_deliveries: [], has_more: false });
  });
});

describe("delivery", () => {
  it("times out a receiver that does not answer", async () => {
    receiver.respond("/slow", "hang");
    const endpoint = await t.api("POST", "/webhook-endpoints", {
      key: merchant.sandboxKey,
      body: { url: `${receiver.url}/slow`, enabled_events: ["payment.created"] },
    });
    await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "1" } });
    await t.app.webhooks.runOnce();
    const log = await t.api("GET", `/webhook-deliveries?endpoint_id=${endpoint.body.id}`, { key: merchant.sandboxKey });
    expect(log.body.webhook_deliveries[0]).toMatchObject({ status: "pending", attempt_count: 1, last_error: "Timed out after 300 ms" });
  });
});

describe("GraphQL", () => {
  const ENDPOINT_FIELDS = "id url enabledEvents enabled secret description";

  it("manages endpoints, sends test events, reads the log and retries", async () => {
    const key = merchant.sandboxKey;
    const created = await t.graphql(
      `mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { secret webhookEndpoint { ${ENDPOINT_FIELDS} } } }`,
      { input: { url: `${receiver.url}/graphql`, enabledEvents: ["payment.created"] } },
      key,
    );
    expect(created.body.errors).toBeUndefined();
    const { secret, webhookEndpoint } = created.body.data.createWebhookEndpoint;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(webhookEndpoint).toMatchObject({ url: `${receiver.url}/graphql`, enabledEvents: ["payment.created"], enabled: true });
    expect(webhookEndpoint.secret).toMatch(MASKED);

    const invalid = await t.graphql(
      `mutation { createWebhookEndpoint(input: {url: "${receiver.url}/x", enabledEvents: ["nope"]}) { secret } }`,
      undefined,
      key,
    );
    expect(invalid.body.errors[0]).toMatchObject({ extensions: { code: "BAD_REQUEST" } });
    expect(invalid.body.errors[0].message).toMatch(/^Enabled event 1: must be one of payment\.created/);

    receiver.respond("/graphql", 503);
    const sent = await t.graphql(`mutation($id: ID!) { sendTestWebhook(endpointId: $id) { id event status } }`, { id: webhookEndpoint.id }, key);
    expect(sent.body.data.sendTestWebhook).toMatchObject({ event: "webhook.test", status: "pending" });
    await t.app.webhooks.runOnce();

    const deliveryQuery = `query($endpointId: String) { webhookDeliveries(endpointId: $endpointId, first: 10) { edges { node {
      id endpointId event status responseCode attemptCount nextRetryAt requestPayload responseBody lastError createdAt
      endpoint { id } attempts { number responseCode error durationMs startedAt } } } } }`;
    const log = await t.graphql(deliveryQuery, { endpointId: webhookEndpoint.id }, key);
    expect(log.body.errors).toBeUndefined();
    const [edge] = log.body.data.webhookDeliveries.edges;
    expect(edge.node).toMatchObject({
      id: sent.body.data.sendTestWebhook.id,
      endpointId: webhookEndpoint.id,
      event: "webhook.test",
      status: "pending",
      responseCode: 503,
      attemptCount: 1,
      lastError: "Endpoint answered HTTP 503",
      endpoint: { id: webhookEndpoint.id },
      attempts: [{ number: 1, responseCode: 503, error: "Endpoint answered HTTP 503" }],
    });
    expect(JSON.parse(edge.node.requestPayload).data.metadata).toEqual({ service_test: "true" });

    receiver.respond("/graphql", 200);
    const retried = await t.graphql(`mutation($id: ID!) { retryWebhookDelivery(id: $id) { status nextRetryAt } }`, { id: edge.node.id }, key);
    expect(retried.body.data.retryWebhookDelivery.status).toBe("pending");
    await t.app.webhooks.runOnce();
    const one = await t.graphql(`query($id: ID!) { webhookDelivery(id: $id) { status attemptCount attempts { number responseCode } } }`, { id: edge.node.id }, key);
    expect(one.body.data.webhookDelivery).toEqual({
      status: "succeeded",
      attemptCount: 2,
      attempts: [{ number: 1, responseCode: 503 }, { number: 2, responseCode: 200 }],
    });

    const updated = await t.graphql(
      `mutation($id: ID!) { updateWebhookEndpoint(id: $id, input: {enabledEvents: ["*"], enabled: false}) { enabledEvents enabled } }`,
      { id: webhookEndpoint.id },
      key,
    );
    expect(updated.body.data.updateWebhookEndpoint).toEqual({ enabledEvents: ["*"], enabled: false });
    const rotated = await t.graphql(
      `mutation($id: ID!) { rotateWebhookEndpointSecret(id: $id) { secret webhookEndpoint { secret previousSecretExpiresAt } } }`,
      { id: webhookEndpoint.id },
      key,
    );
    const rotation = rotated.body.data.rotateWebhookEndpointSecret;
    expect(rotation.secret).not.toBe(secret);
    expect(rotation.webhookEndpoint.secret).toBe(`whsec_${rotation.secret.slice(6, 10)}…${rotation.secret.slice(-4)}`);

    const list = await t.graphql(`{ webhookEndpoints(first: 50) { edges { node { id } } } }`, undefined, key);
    expect(list.body.data.webhookEndpoints.edges.map((e: any) => e.node.id)).toContain(webhookEndpoint.id);
    const deleted = await t.graphql(`mutation($id: ID!) { deleteWebhookEndpoint(id: $id) }`, { id: webhookEndpoint.id }, key);
    expect(deleted.body.data.deleteWebhookEndpoint).toBe(webhookEndpoint.id);
    const gone = await t.graphql(`query($id: ID!) { webhookEndpoint(id: $id) { id } }`, { id: webhookEndpoint.id }, key);
    expect(gone.body.errors[0]).toMatchObject({ message: "Not found", extensions: { code: "NOT_FOUND" } });

    const stranger = await t.createMerchant();
    const foreign = await t.graphql(`query($id: ID!) { webhookDelivery(id: $id) { id } }`, { id: edge.node.id }, stranger.sandboxKey);
    expect(foreign.body.errors[0].extensions.code).toBe("NOT_FOUND");
    const anonymous = await t.graphql(`{ webhookEndpoints(first: 1) { edges { node { id } } } }`);
    expect(anonymous.body.errors[0].extensions.code).toBe("UNAUTHENTICATED");
  });
});
