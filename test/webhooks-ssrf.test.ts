// The SSRF guard of webhooks (issue 13, findings 3 and 7). By default no endpoint, sandbox or
// production, may target loopback, private, link-local or metadata addresses, at registration or at
// connect time; an operator may allow them (WEBHOOK_ALLOW_PRIVATE=true), and then the answer of a
// private address is never stored nor shown.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";
import { type WebhookReceiver, startWebhookReceiver } from "./support/webhook-receiver.ts";

let guarded: TestApp;
let merchant: Merchant;
let receiver: WebhookReceiver;

beforeAll(async () => {
  guarded = await startTestApp();
  merchant = await guarded.createMerchant();
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await guarded.close();
  await receiver.close();
});

const PRIVATE_ERROR = /^url must not point to a private, loopback or link-local address/;

async function register(t: TestApp, key: string, url: string) {
  return t.api("POST", "/webhook-endpoints", { key, body: { url, enabled_events: ["*"] } });
}

describe("by default (WEBHOOK_ALLOW_PRIVATE unset)", () => {
  it("finding 3: a sandbox endpoint may not target loopback, private or metadata addresses, over REST or GraphQL", async () => {
    expect(guarded.config.webhookAllowPrivate).toBe(false);
    const key = merchant.sandboxKey;
    for (const url of [`${receiver.url}/secret`, "http://localhost:8080/", "http://10.0.0.5/", "http://169.254.169.254/latest/meta-data"]) {
      const res = await register(guarded, key, url);
      expect(res.status, url).toBe(400);
      expect(res.body.error).toMatch(PRIVATE_ERROR);
    }
    const viaGraphql = await guarded.graphql(
      `mutation($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { secret } }`,
      { input: { url: `${receiver.url}/secret`, enabledEvents: ["*"] } },
      key,
    );
    expect(viaGraphql.body.errors[0]).toMatchObject({ extensions: { code: "BAD_REQUEST" } });
    expect(viaGraphql.body.errors[0].message).toMatch(/^URL: must be a public address on the internet; .+ is private, loopback or link-local$/);

    const publicEndpoint = await register(guarded, key, "http://93.184.215.14/hook");
    expect(publicEndpoint.status).toBe(201);
    const moved = await guarded.api("POST", `/webhook-endpoints/${publicEndpoint.body.id}`, { key, body: { url: `${receiver.url}/secret` } });
    expect(moved.status).toBe(400);
    expect(moved.body.error).toMatch(PRIVATE_ERROR);
    expect(await guarded.database.db.webhookEndpoint.count({ where: { url: { contains: "127.0.0.1" } } })).toBe(0);
  });

  it("finding 3: a sandbox endpoint registered on loopback before the upgrade gets nothing sent", async () => {
    // As an earlier version let a sandbox key register it.
    const created = await register(guarded, merchant.sandboxKey, "http://93.184.215.14/hook");
    await guarded.database.db.webhookEndpoint.update({ where: { id: created.body.id }, data: { url: `${receiver.url}/legacy` } });
    await guarded.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "1" } });
    await guarded.app.webhooks.runOnce();
    expect(receiver.at("/legacy")).toHaveLength(0);
    const log = await guarded.api("GET", `/webhook-deliveries?endpoint_id=${created.body.id}`, { key: merchant.sandboxKey });
    expect(log.body.webhook_deliveries[0]).toMatchObject({ status: "pending", attempt_count: 1, response_code: null, response_body: null });
    expect(log.body.webhook_deliveries[0].last_error).toBe("127.0.0.1 resolves to 127.0.0.1, a private or reserved address; refused");
  });

  it("refuses private, loopback, link-local and metadata targets and plain http in production", async () => {
    const key = merchant.liveKey;
    for (const url of [
      "https://127.0.0.1/hook",
      "https://localhost/hook",
      "https://10.1.2.3/hook",
      "https://192.168.0.10/hook",
      "https://169.254.169.254/latest/meta-data",
      "https://[::1]/hook",
      "https://[fd00:ec2::254]/hook",
    ]) {
      const res = await register(guarded, key, url);
      expect(res.status, url).toBe(400);
      expect(res.body.error).toMatch(PRIVATE_ERROR);
    }
    const http = await register(guarded, key, "http://hooks.example.com/x");
    expect(http).toMatchObject({ status: 400, body: { error: "url must use https" } });
    expect((await register(guarded, key, "https://93.184.215.14/x")).status).toBe(201);
  });

  it("finding 7: refuses IPv6 forms that lead to a private IPv4 address, and IPv4 written in decimal, octal or hex", async () => {
    const key = merchant.liveKey;
    for (const url of [
      "https://[::127.0.0.1]/", // IPv4-compatible
      "https://[64:ff9b:1::a9fe:a9fe]/", // local-use NAT64
      "https://[2002:a9fe:a9fe::]/", // 6to4
      "https://[64:ff9b::a9fe:a9fe]/", // NAT64
      "https://[::ffff:169.254.169.254]/", // IPv4-mapped
      "https://[::ffff:0:a00:1]/", // IPv4-translated
      "https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", // Teredo, client 127.0.0.1
      "https://2130706433/", // 127.0.0.1 in decimal
      "https://0x7f.0.0.1/", // hex
      "https://0177.0.0.1/", // octal
      "https://0xa9fea9fe/", // 169.254.169.254 in one hex number
    ]) {
      const res = await register(guarded, key, url);
      expect(res.status, url).toBe(400);
      expect(res.body.error, url).toMatch(PRIVATE_ERROR);
    }
  });

  it("finding 7: accepts the same forms when they lead to a public address", async () => {
    // 93.184.215.14 = 5db8:d70e
    for (const url of [
      "https://[::ffff:93.184.215.14]/",
      "https://[::93.184.215.14]/",
      "https://[64:ff9b::5db8:d70e]/",
      "https://[2002:5db8:d70e::1]/",
      "https://[2606:4700::1111]/",
    ]) {
      expect((await register(guarded, merchant.liveKey, url)).status, url).toBe(201);
    }
  });

  it("refuses at connect time a target that resolves to a private address", async () => {
    const created = await register(guarded, merchant.liveKey, "https://hooks.example.test/x");
    expect(created.status).toBe(201);
    // The name now resolves to loopback (as a DNS change after registration would make it).
    const port = new URL(receiver.url).port;
    await guarded.database.db.webhookEndpoint.update({ where: { id: created.body.id }, data: { url: `http://localhost:${port}/rebound` } });
    await guarded.api("POST", "/payments", { key: merchant.liveKey, body: { amount: "1" } });
    await guarded.app.webhooks.runOnce();
    expect(receiver.at("/rebound")).toHaveLength(0);
    const log = await guarded.api("GET", `/webhook-deliveries?endpoint_id=${created.body.id}`, { key: merchant.liveKey });
    expect(log.body.webhook_deliveries[0]).toMatchObject({ status: "pending", attempt_count: 1, response_code: null });
    expect(log.body.webhook_deliveries[0].last_error).toMatch(/^localhost resolves to (127\.0\.0\.1|::1), a private or reserved address; refused$/);
  });
});

describe("WEBHOOK_ALLOW_PRIVATE=true", () => {
  let open: TestApp;
  let owner: Merchant;
  beforeAll(async () => {
    open = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: "true" } });
    owner = await open.createMerchant();
  });
  afterAll(() => open.close());

  it("lets sandbox and production endpoints reach private addresses", async () => {
    expect((await register(open, owner.sandboxKey, `${receiver.url}/sandbox`)).status).toBe(201);
    expect((await register(open, owner.liveKey, "https://127.0.0.1/hook")).status).toBe(201);
  });

  it("finding 3: a delivery to a loopback receiver that answers a secret stores no body; the log shows none, on REST or GraphQL", async () => {
    const SECRET = "aws-secret-access-key=wJalrXUtnFEMI/K7MDENG";
    receiver.respond("/metadata-ok", { status: 200, body: SECRET });
    receiver.respond("/metadata-error", { status: 500, body: SECRET });
    const ok = await register(open, owner.sandboxKey, `${receiver.url}/metadata-ok`);
    const failing = await register(open, owner.sandboxKey, `${receiver.url}/metadata-error`);
    await open.api("POST", "/payments", { key: owner.sandboxKey, body: { amount: "1" } });
    await open.app.webhooks.runOnce();
    expect(receiver.at("/metadata-ok")).toHaveLength(1);
    expect(receiver.at("/metadata-error")).toHaveLength(1);

    const [delivered] = (await open.api("GET", `/webhook-deliveries?endpoint_id=${ok.body.id}`, { key: owner.sandboxKey })).body.webhook_deliveries;
    expect(delivered).toMatchObject({ status: "succeeded", response_code: 200, response_body: null, attempts: [{ response_code: 200, response_body: null }] });
    const one = await open.api("GET", `/webhook-deliveries/${delivered.id}`, { key: owner.sandboxKey });
    const [refused] = (await open.api("GET", `/webhook-deliveries?endpoint_id=${failing.body.id}`, { key: owner.sandboxKey })).body.webhook_deliveries;
    expect(refused).toMatchObject({ status: "pending", response_code: 500, response_body: null, last_error: "Endpoint answered HTTP 500" });
    expect(one.raw).not.toContain("wJalrXUtnFEMI");
    const list = await open.api("GET", "/webhook-deliveries?limit=100", { key: owner.sandboxKey });
    expect(list.raw).not.toContain("wJalrXUtnFEMI");

    const graphql = await open.graphql(
      `{ webhookDeliveries(first: 50) { edges { node { id responseCode responseBody lastError attempts { responseCode responseBody error } } } } }`,
      undefined,
      owner.sandboxKey,
    );
    expect(graphql.body.errors).toBeUndefined();
    const nodes = graphql.body.data.webhookDeliveries.edges.map((e: any) => e.node);
    expect(nodes.find((n: any) => n.id === delivered.id)).toMatchObject({ responseCode: 200, responseBody: null, attempts: [{ responseBody: null }] });
    expect(JSON.stringify(graphql.body)).not.toContain("wJalrXUtnFEMI");

    // Nor is it anywhere in the database.
    const stored = await open.database.db.webhookAttempt.findMany({ where: { deliveryId: { in: [delivered.id, refused.id] } } });
    expect(stored.map((a) => [a.responseCode, a.responseBody])).toEqual(expect.arrayContaining([[200, null], [500, null]]));
    const deliveries = await open.database.db.webhookDelivery.findMany({ where: { id: { in: [delivered.id, refused.id] } } });
    expect(deliveries.map((d) => d.responseBody)).toEqual([null, null]);
  });
});
