import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/config.ts";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";

let t: TestApp;
let merchant: Merchant;

beforeAll(async () => {
  t = await startTestApp({ env: { RATE_LIMIT_SANDBOX: "2", RATE_LIMIT_LIVE: "0" } });
  merchant = await t.createMerchant();
});
afterAll(() => t.close());

const list = (key: string) => t.api("GET", "/payments", { key });

describe("rate limits per API key (a one-second window holding the whole budget)", () => {
  it("lets the window's worth through, then answers 429 with Retry-After and RateLimit-* headers", async () => {
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

  it("refills when the window ends: Retry-After seconds later the whole budget passes again", async () => {
    const m = await t.createMerchant();
    await list(m.sandboxKey);
    await list(m.sandboxKey);
    const refused = await list(m.sandboxKey);
    expect(refused.status).toBe(429);
    await new Promise((resolve) => setTimeout(resolve, Number(refused.headers.get("retry-after")) * 1000));
    expect((await list(m.sandboxKey)).status).toBe(200);
    expect((await list(m.sandboxKey)).status).toBe(200);
    expect((await list(m.sandboxKey)).status).toBe(429);
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
  it("defaults to 100/s live, 25/s sandbox and 50/s per anonymous address, and reads RATE_LIMIT_LIVE / _SANDBOX / _PUBLIC", () => {
    expect(loadConfig({}).rateLimits).toEqual({ live: 100, sandbox: 25, public: 50 });
    expect(loadConfig({ RATE_LIMIT_LIVE: "7", RATE_LIMIT_SANDBOX: "0", RATE_LIMIT_PUBLIC: "3" }).rateLimits).toEqual({
      live: 7,
      sandbox: 0,
      public: 3,
    });
  });
});
