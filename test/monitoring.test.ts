// The operator's door of one process: /health (alive), /ready (takes traffic: started, not
// draining, database answering with every migration applied) and /metrics (Prometheus text with
// route templates and the backlogs, served to this machine only unless METRICS_TOKEN is set).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { directSql } from "../src/db/client.ts";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";

/** A sample's value in Prometheus text, by its name and exact label text (`{...}`), or null. */
function sample(text: string, series: string): number | null {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : null;
}

describe("one process", () => {
  let t: TestApp;
  let merchant: Merchant;
  beforeAll(async () => {
    t = await startTestApp({ env: { WEBHOOK_ALLOW_PRIVATE: "true" } });
    merchant = await t.createMerchant();
  });
  afterAll(() => t.close());

  it("counts requests under their route template, never the raw id, with the outbox backlogs", async () => {
    // Workers not started: the test moves the webhook worker by hand.
    const endpoint = await t.api("POST", "/webhook-endpoints", { key: merchant.sandboxKey, body: { url: "http://127.0.0.1:9/hook", enabled_events: ["payment.created"] } });
    expect(endpoint.status).toBe(201);
    const first = await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "1" } });
    expect(first.status).toBe(201);
    // Fanned out, and its delivery refused by the closed port: pending, waiting for its retry.
    expect(await t.app.webhooks.runOnce()).toEqual({ fannedOut: 1, sent: 1 });
    const second = await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "2" } });
    for (let i = 0; i < 3; i++) expect((await t.api("GET", `/payments/${first.body.id}`, { key: merchant.sandboxKey })).status).toBe(200);
    expect((await t.api("GET", "/payments/pay_doesnotexist0000000", { key: merchant.sandboxKey })).status).toBe(404);

    const response = await fetch(`${t.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/plain");
    const text = await response.text();
    const count = (labels: string) => sample(text, `stellar_pay_http_request_duration_seconds_count{${labels}}`);
    expect(count('method="GET",route="/api/v1/payments/:id",status="200"')).toBe(3);
    expect(count('method="GET",route="/api/v1/payments/:id",status="404"')).toBe(1);
    expect(count('method="POST",route="/api/v1/payments",status="201"')).toBe(2);
    expect(count('method="POST",route="/api/v1/webhook-endpoints",status="201"')).toBe(1);
    expect(text).not.toContain(first.body.id);
    expect(sample(text, "stellar_pay_outbox_backlog_events")).toBe(1); // the second payment's payment.created
    expect(sample(text, "stellar_pay_webhook_backlog_deliveries")).toBe(1); // the first's, to be retried
    expect(sample(text, "stellar_pay_mail_backlog_messages")).toBe(0);
    expect(sample(text, "stellar_pay_sse_subscribers")).toBe(0);
    expect(text).toContain("stellar_pay_process_cpu_seconds_total");
    expect(second.status).toBe(201);
  });

  it("is alive at once, ready once its workers started, and not ready again while it drains", async () => {
    expect(await (await fetch(`${t.url}/health`)).json()).toEqual({ ok: true });
    const starting = await fetch(`${t.url}/ready`);
    expect(starting.status).toBe(503);
    expect(await starting.json()).toEqual({ error: "starting" });

    await t.app.start({ url: t.url });
    const ready = await fetch(`${t.url}/ready`);
    expect(ready.status).toBe(200);
    // Which API reaches each network (Horizon by default; test/ledger-rpc.test.ts has Stellar RPC's).
    expect(await ready.json()).toEqual({
      ready: true,
      networks: [
        { network: "sandbox", api: "Horizon", path_payments: true },
        { network: "production", api: "Horizon", path_payments: true },
      ],
    });

    t.app.drain();
    const draining = await fetch(`${t.url}/ready`);
    expect(draining.status).toBe(503);
    expect(await draining.json()).toEqual({ error: "stopping" });
    // Draining: everything else still answers until the server closes.
    expect((await t.api("GET", "/payments", { key: merchant.sandboxKey })).status).toBe(200);
  });

  it("serves /metrics to this machine only: a proxied request is refused, whichever header the proxy sets (issue 30)", async () => {
    const proxyHeaders: Record<string, string>[] = [
      { "x-forwarded-for": "203.0.113.7" },
      { forwarded: "for=203.0.113.7" },
      { "x-real-ip": "203.0.113.7" },
      { "x-forwarded-host": "pay.example.com" },
      { "x-forwarded-proto": "https" },
      { via: "1.1 proxy" },
      { "true-client-ip": "203.0.113.7" },
      { "cf-connecting-ip": "203.0.113.7" },
      { "x-client-ip": "203.0.113.7" },
    ];
    for (const header of proxyHeaders) {
      const refused = await fetch(`${t.url}/metrics`, { headers: header });
      expect(refused.status).toBe(403);
      expect(await refused.json(), JSON.stringify(header)).toEqual({ error: expect.stringContaining("METRICS_TOKEN") });
    }
    // Straight from this machine it answers.
    expect((await fetch(`${t.url}/metrics`)).status).toBe(200);
  });

  it("is not ready when the database lacks a migration this code expects", async () => {
    const sql = directSql(t.database.db);
    const [last] = await sql.all(`SELECT "name", "appliedAt" FROM "_migrations" ORDER BY "name" DESC LIMIT 1`, []);
    await sql.batch([{ text: `DELETE FROM "_migrations" WHERE "name" = $1`, params: [last!.name] }]);
    const otherApp = await startTestApp({ env: { DATABASE_URL: t.config.databaseUrl } });
    try {
      await otherApp.app.start({ url: otherApp.url });
      const answer = await fetch(`${otherApp.url}/ready`);
      expect(answer.status).toBe(503);
      expect(await answer.json()).toEqual({ error: `migrations not applied: ${last!.name as string}` });
    } finally {
      await otherApp.close();
      await sql.batch([{ text: `INSERT INTO "_migrations" ("name", "appliedAt") VALUES ($1, $2)`, params: [last!.name, last!.appliedAt] }]);
    }
  });
});

describe("with METRICS_TOKEN", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { METRICS_TOKEN: "scrape-token-0123456789" } });
  });
  afterAll(() => t.close());

  it("takes the bearer token from any address, and nothing else", async () => {
    expect((await fetch(`${t.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${t.url}/metrics`, { headers: { authorization: "Bearer scrape-token-012345678X" } })).status).toBe(401);
    const scraped = await fetch(`${t.url}/metrics`, { headers: { authorization: "Bearer scrape-token-0123456789", "x-forwarded-for": "203.0.113.7" } });
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain("stellar_pay_http_request_duration_seconds");
  });
});
