import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.ts";
import { type Merchant, type TestApp, TestClock, startTestApp } from "./support/test-app.ts";

/** Time stands still unless advanced, so the bucket refills only when the test says so. */
class FrozenClock extends TestClock {
  private at = Date.now();
  override now() {
    return new Date(this.at);
  }
  override advance(ms: number) {
    this.at += ms;
  }
}

let t: TestApp;
let merchant: Merchant;

beforeAll(async () => {
  t = await startTestApp({ env: { RATE_LIMIT_SANDBOX: "2", RATE_LIMIT_LIVE: "0" }, clock: new FrozenClock() });
  merchant = await t.createMerchant();
});
afterAll(() => t.close());

const list = (key: string) => t.api("GET", "/payments", { key });

describe("rate limits per API key (token bucket)", () => {
  it("lets the bucket's worth through, then answers 429 with Retry-After and RateLimit-* headers", async () => {
    const m = await t.createMerchant();
    const first = await list(m.sandboxKey);
    const second = await list(m.sandboxKey);
    const third = await list(m.sandboxKey);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(first.headers.get("ratelimit-limit")).toBe("2");
    expect(first.headers.get("ratelimit-remaining")).toBe("1");
    expect(second.headers.get("ratelimit-remaining")).toBe("0");
    expect(third.status).toBe(429);
    expect(third.body).toEqual({ error: "Too many requests" });
    expect(third.headers.get("retry-after")).toBe("1");
    expect(third.headers.get("ratelimit-limit")).toBe("2");
    expect(third.headers.get("ratelimit-remaining")).toBe("0");
    expect(third.headers.get("ratelimit-reset")).toBe("1");
  });

  it("refills at the configured rate: half a second gives one more request at 2/s", async () => {
    const m = await t.createMerchant();
    await list(m.sandboxKey);
    await list(m.sandboxKey);
    expect((await list(m.sandboxKey)).status).toBe(429);
    t.clock.advance(500);
    expect((await list(m.sandboxKey)).status).toBe(200);
    expect((await list(m.sandboxKey)).status).toBe(429);
    t.clock.advance(1000);
    expect((await list(m.sandboxKey)).status).toBe(200);
    expect((await list(m.sandboxKey)).status).toBe(200);
  });

  it("limits writes too, and a refused write creates nothing", async () => {
    const m = await t.createMerchant();
    await list(m.sandboxKey);
    await list(m.sandboxKey);
    const before = await t.database.db.payment.count();
    const res = await t.api("POST", "/payments", { key: m.sandboxKey, body: { amount: "1" } });
    expect(res.status).toBe(429);
    expect(await t.database.db.payment.count()).toBe(before);
  });

  it("keeps one bucket per key: another key is not affected", async () => {
    const a = await t.createMerchant();
    const b = await t.createMerchant();
    await list(a.sandboxKey);
    await list(a.sandboxKey);
    expect((await list(a.sandboxKey)).status).toBe(429);
    expect((await list(b.sandboxKey)).status).toBe(200);
  });

  it("does not limit at all when the rate is 0 (here: live keys), and sends no RateLimit headers", async () => {
    const results = [];
    for (let i = 0; i < 10; i++) results.push(await list(merchant.liveKey));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(results[9]!.headers.get("ratelimit-limit")).toBeNull();
  });
});

describe("rate limit configuration", () => {
  it("defaults to 100/s live and 25/s sandbox, and reads RATE_LIMIT_LIVE / RATE_LIMIT_SANDBOX", () => {
    expect(loadConfig({}).rateLimits).toEqual({ live: 100, sandbox: 25 });
    expect(loadConfig({ RATE_LIMIT_LIVE: "7", RATE_LIMIT_SANDBOX: "0" }).rateLimits).toEqual({ live: 7, sandbox: 0 });
  });
});
