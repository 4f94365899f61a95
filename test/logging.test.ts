import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Keypair, Networks } from "@stellar/stellar-sdk";
import { afterAll, describe, expect, it } from "vitest";
import { createNetworkLocks } from "../src/ledger/network-locks.ts";
import { HorizonSource } from "../src/ledger/horizon-source.ts";
import { createLedgerStreamer } from "../src/ledger/streamer.ts";
import { captureLog } from "./support/captured-log.ts";
import { TestClock, startTestApp } from "./support/test-app.ts";

const log = captureLog("info");
const clock = new TestClock();
const t = await startTestApp({ logger: log.logger, clock });
afterAll(() => t.close());
const merchant = await t.createMerchant();

const until = async (what: () => boolean, ms = 5000) => {
  const deadline = Date.now() + ms;
  while (!what()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe("request log", () => {
  it("issue 14 item 4: every request gets one JSON line (method, path, status, duration, id) and its id as X-Request-Id", async () => {
    const response = await t.api("GET", "/payments?limit=5&cursor=secret-looking", { key: merchant.sandboxKey });
    expect(response.status).toBe(200);
    const id = response.headers.get("x-request-id");
    expect(id).toMatch(/^req_[0-9A-Za-z]{24}$/);
    await until(() => log.lines().some((l) => l.request_id === id));
    const line = log.lines().find((l) => l.request_id === id)!;
    expect(line).toMatchObject({ level: "info", message: "request", method: "GET", url: "/api/v1/payments", status: 200 });
    expect(typeof line.duration_ms).toBe("number");
    expect(line.duration_ms).toBeGreaterThanOrEqual(0);
    // Neither the query nor the key reaches the line.
    const raw = log.raw.find((l) => l.includes(id!))!;
    expect(raw).not.toContain("secret-looking");
    expect(raw).not.toContain(merchant.sandboxKey);
  });

  it("issue 14 item 4: the other doors (GraphQL, pages, health, a refused key) are logged too, with their status", async () => {
    const answers = await Promise.all([
      fetch(`${t.url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: "{ __typename }" }) }),
      fetch(`${t.url}/health`),
      fetch(`${t.url}/no-such-page`),
      fetch(`${t.url}/api/v1/payments`, { headers: { authorization: "Bearer sk_test_not_a_real_key" } }),
    ]);
    for (const answer of answers) await answer.arrayBuffer();
    const ids = answers.map((a) => a.headers.get("x-request-id"));
    expect(new Set(ids).size).toBe(4);
    await until(() => ids.every((id) => log.lines().some((l) => l.request_id === id)));
    const lineOf = (i: number) => log.lines().find((l) => l.request_id === ids[i])!;
    expect(lineOf(0)).toMatchObject({ method: "POST", url: "/graphql", status: answers[0]!.status });
    expect(lineOf(1)).toMatchObject({ method: "GET", url: "/health", status: 200 });
    expect(lineOf(2)).toMatchObject({ method: "GET", url: "/no-such-page", status: 404 });
    expect(lineOf(3)).toMatchObject({ method: "GET", url: "/api/v1/payments", status: 401 });
    expect(log.raw.join("\n")).not.toContain("sk_test_not_a_real_key");
  });
});

describe("Horizon unreachable", () => {
  it("issue 14 item 6: one warning, a periodic summary, no stack trace per retry, and one line when it is back", async () => {
    // A port that was just free: nothing listens there until the test opens it.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    const url = `http://127.0.0.1:${port}`;

    // An open payment on a network whose cursor is saved: the streamer goes straight to the stream.
    const wallet = Keypair.random().publicKey();
    await t.deps.db.networkCursor.create({ data: { networkPassphrase: Networks.TESTNET, cursor: "now" } });
    const created = await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "1" } });
    expect(created.status).toBe(201);
    await t.deps.db.payment.update({ where: { id: (created.body as { id: string }).id }, data: { settlementAddress: wallet } });

    const outage = captureLog("info");
    const locks = createNetworkLocks(t.config, outage.logger);
    const streamer = createLedgerStreamer(
      { ...t.deps, logger: outage.logger },
      {
        sourceFor: (networkPassphrase) => new HorizonSource({ url, networkPassphrase }),
        locks,
        tickMs: 50,
        // A connection that stays up for initialMs counts as reached: long enough that a refusal on a
        // loaded machine always comes first.
        backoff: { initialMs: 150, maxMs: 200 },
        outageSummaryMs: 60_000,
      },
    );
    let horizon: Server | undefined;
    try {
      streamer.start();
      const warnings = () => outage.lines().filter((l) => l.level === "warn");
      await until(() => warnings().length > 0);
      // Several retries later (backoff of 150–200 ms), still the one warning.
      await new Promise((r) => setTimeout(r, 800));
      expect(warnings()).toHaveLength(1);
      expect(warnings()[0]!.message).toBe(`Horizon ${url} unavailable; retrying`);
      expect(outage.raw.join("\n")).not.toContain("stack");

      // A minute later on the clock: one summary with the retries counted.
      clock.advance(61_000);
      await until(() => warnings().length === 2);
      expect(warnings()[1]!.message).toMatch(new RegExp(`^Horizon ${url} still unavailable: \\d+ retries since \\d{4}-`));
      expect(warnings()[1]!.retries).toBeGreaterThan(2);
      expect(warnings().map((w) => w.reason)).not.toContain("[object Object]");
      await new Promise((r) => setTimeout(r, 200));
      expect(warnings()).toHaveLength(2);

      // Horizon comes back (a stream that stays open): one info line.
      horizon = createServer((_req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write('retry: 1000\nevent: open\ndata: "hello"\n\n');
      });
      await new Promise<void>((r) => horizon!.listen(port, "127.0.0.1", r));
      await until(() => outage.lines().some((l) => l.message === `Horizon ${url} available again`));
      expect(outage.lines().filter((l) => l.level === "info" && String(l.message).startsWith("Horizon"))).toHaveLength(1);
      expect(outage.raw.join("\n")).not.toContain("stack");
    } finally {
      await streamer.stop();
      await locks.close();
      horizon?.closeAllConnections();
      await new Promise((r) => (horizon ? horizon.close(r) : r(undefined)));
    }
  });
});
