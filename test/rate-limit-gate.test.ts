// Finding 5 of issue 13: rate limits held only on /api/v1. Now every door spends one budget: an API
// key's across REST, GraphQL and /graphql/stream; an anonymous caller's per network address across
// the checkout's operations, payment link visits and refused keys. Each anonymous caller here calls
// from an address of its own on the loopback network (127.0.0.x), so the tests do not share budgets.
import { request as httpRequest } from "node:http";
import { Networks } from "@stellar/stellar-sdk";
import { parse } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../src/app.ts";
import { openDatabase } from "../src/db/client.ts";
import { BOUNDS_ERROR_CODE as GRAPHQL_BOUNDS_CODE, GRAPHQL_BOUNDS } from "../src/gate/graphql-bounds.ts";
import { addressBucket } from "../src/gate/rate-limit.ts";
import { operationPoints } from "../src/gate/rate-limit.graphql.ts";
import { serve } from "../src/server.ts";
import { type TestApp, dialect, startTestApp } from "./support/test-app.ts";

const PUBLIC_PER_SECOND = 20;
const SANDBOX_PER_SECOND = 25;
const LIVE_PER_SECOND = 5;

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({
    workers: true,
    env: {
      LEDGER: "simulated",
      SIM_LEDGER_CLOSE_MS: "100",
      RATE_LIMIT_LIVE: String(LIVE_PER_SECOND),
      RATE_LIMIT_SANDBOX: String(SANDBOX_PER_SECOND),
      RATE_LIMIT_PUBLIC: String(PUBLIC_PER_SECOND),
    },
  });
});
afterAll(() => t.close());

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One HTTP request from the local address `from` (any 127.0.0.x reaches the test server). */
function requestFrom(from: string, path: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return new Promise<Answer>((resolve, reject) => {
    const req = httpRequest(`${t.url}${path}`, { method: options.method ?? "GET", headers: options.headers, localAddress: from, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString() }));
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

async function graphqlFrom(from: string, query: string, variables: Record<string, unknown> = {}) {
  const answer = await requestFrom(from, "/graphql", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query, variables }),
  });
  return JSON.parse(answer.text);
}

const aliases = (count: number, field: string) => Array.from({ length: count }, (_, i) => `a${i}: ${field}`).join(" ");
/** `total` points of aliases as operations the GraphQL bounds let through (at most maxAliases each). */
const aliasBatches = (total: number) =>
  Array.from({ length: Math.ceil(total / GRAPHQL_BOUNDS.maxAliases) }, (_, i) => Math.min(GRAPHQL_BOUNDS.maxAliases, total - i * GRAPHQL_BOUNDS.maxAliases));
const PAYMENTS_FIELD = "payments(first: 1) { pageInfo { hasNextPage } }";
const isRateLimited = (body: any) => body.errors?.[0]?.extensions?.code === "RATE_LIMITED";

/** How many windows of one second can have begun between `startedMs` and now. */
const windowsSince = (startedMs: number) => 1 + Math.floor((Date.now() - startedMs) / 1000);

/**
 * A budget is a window of one second, so a scenario that spends one and then meets the refusal must
 * run within one window. On a loaded machine an attempt may straddle two: it is run again (with fresh
 * keys or addresses, by `attempt`) until one fits, at most five times; an attempt that fits must pass.
 */
async function inOneWindow(scenario: (attempt: number) => Promise<void>) {
  for (let attempt = 1; attempt <= 5; attempt++) {
    const started = Date.now();
    try {
      await scenario(attempt);
    } catch (error) {
      if (windowsSince(started) === 1) throw error;
      continue;
    }
    if (windowsSince(started) === 1) return;
  }
  throw new Error("no attempt ran within one rate-limit window");
}

async function sandboxPayment(key: string) {
  const created = await t.api("POST", "/payments", { key, body: { amount: "1" } });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

describe("finding 5: one budget per API key, whichever door it calls", () => {
  it("finding 5: a key's GraphQL request spends the budget REST then finds spent", async () => {
    const merchants = await Promise.all(Array.from({ length: 5 }, () => t.createMerchant()));
    await inOneWindow(async (attempt) => {
      const m = merchants[attempt - 1]!;
      for (const size of aliasBatches(SANDBOX_PER_SECOND)) {
        const spent = await t.graphql(`{ ${aliases(size, PAYMENTS_FIELD)} }`, {}, m.sandboxKey);
        expect(spent.body.errors).toBeUndefined();
      }
      const rest = await t.api("GET", "/payments", { key: m.sandboxKey });
      expect(rest.status).toBe(429);
      expect(rest.body).toEqual({ error: "Too many requests" });
      expect(rest.headers.get("retry-after")).toBe("1");
    });
  });

  it("finding 5: a key that spent its budget on REST is refused on GraphQL with RATE_LIMITED and retryAfter", async () => {
    const merchants = await Promise.all(Array.from({ length: 5 }, () => t.createMerchant()));
    await inOneWindow(async (attempt) => {
      const m = merchants[attempt - 1]!;
      const rest = await Promise.all(Array.from({ length: LIVE_PER_SECOND }, () => t.api("GET", "/payments", { key: m.liveKey })));
      expect(rest.map((r) => r.status)).toEqual(Array(LIVE_PER_SECOND).fill(200));
      const refused = await t.graphql(`{ ${PAYMENTS_FIELD} }`, {}, m.liveKey);
      expect(refused.body.data ?? null).toBeNull();
      expect(refused.body.errors).toEqual([
        expect.objectContaining({ message: "Too many requests; try again in 1 second", extensions: { code: "RATE_LIMITED", retryAfter: 1 } }),
      ]);
    });
  });

  it("finding 5: a GraphQL operation costs its size: one past the budget left is refused whole with RATE_LIMITED before anything runs", async () => {
    const m = await t.createMerchant();
    const before = await t.database.db.payment.count();
    const create = (count: number, key: string) => t.graphql(`mutation { ${aliases(count, 'createPayment(input: { amount: "1" }) { id }')} }`, {}, key);
    // 300 aliased creates (what created 300 payments in 2.3 s) never reach execution: the bounds refuse them.
    const flood = await create(300, m.sandboxKey);
    expect(flood.body.errors[0].extensions.code).toBe(GRAPHQL_BOUNDS_CODE);
    expect(await t.database.db.payment.count()).toBe(before);

    const merchants = await Promise.all(Array.from({ length: 5 }, () => t.createMerchant()));
    await inOneWindow(async (attempt) => {
      const key = merchants[attempt - 1]!.sandboxKey;
      // Counted in the attempt: one that straddles two windows may be let through, and is run again.
      const beforeAttempt = await t.database.db.payment.count();
      const rest = await Promise.all(Array.from({ length: SANDBOX_PER_SECOND - 5 }, () => t.api("GET", "/payments", { key })));
      expect(rest.every((r) => r.status === 200)).toBe(true);
      const refused = await create(GRAPHQL_BOUNDS.maxAliases, key);
      expect(refused.body.errors).toHaveLength(1);
      expect(refused.body.errors[0].extensions).toEqual({ code: "RATE_LIMITED", retryAfter: 1 });
      expect(refused.body.data ?? null).toBeNull();
      expect(await t.database.db.payment.count()).toBe(beforeAttempt);
    });
    // Within its budget the same mutation runs: the cost is by size, not by kind.
    const fits = await create(3, (await t.createMerchant()).sandboxKey);
    expect(fits.body.errors).toBeUndefined();
    expect(Object.keys(fits.body.data)).toHaveLength(3);
  });

  it("finding 5: an operation over /graphql/stream spends the same key's budget", async () => {
    const merchants = await Promise.all(Array.from({ length: 5 }, () => t.createMerchant()));
    await inOneWindow(async (attempt) => {
      const key = merchants[attempt - 1]!.sandboxKey;
      const stream = (query: string) =>
        fetch(`${t.url}/graphql/stream`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "text/event-stream" },
          body: JSON.stringify({ query }),
        });
      for (const size of aliasBatches(SANDBOX_PER_SECOND)) {
        expect(await (await stream(`{ ${aliases(size, PAYMENTS_FIELD)} }`)).text()).toContain('"hasNextPage":false');
      }
      expect((await t.api("GET", "/payments", { key })).status).toBe(429);
      expect(await (await stream(`{ ${PAYMENTS_FIELD} }`)).text()).toContain('"code":"RATE_LIMITED"');
    });
  });
});

describe("finding 5: anonymous callers are limited per address", () => {
  it("finding 5: a flood of link visits from one address is refused with 429 + Retry-After and opens no more sessions than the budget", async () => {
    const m = await t.createMerchant();
    const link = await t.api("POST", "/payment-links", { key: m.sandboxKey, body: { amount: "2" } });
    expect(link.status).toBe(201);
    const before = await t.database.db.checkoutSession.count();

    const started = Date.now();
    const visits = await Promise.all(Array.from({ length: 40 }, () => requestFrom("127.0.0.11", `/c/${link.body.id}`)));
    // A visit costs 5 points of the address's 20 a second: 4 visits a window.
    const allowed = visits.filter((v) => v.status === 303).length;
    expect(allowed).toBeGreaterThanOrEqual(4);
    expect(allowed).toBeLessThanOrEqual(4 * windowsSince(started));
    const refused = visits.filter((v) => v.status === 429);
    expect(refused).toHaveLength(40 - allowed);
    expect(refused[0]!.headers["retry-after"]).toBe("1");
    expect(refused[0]!.headers["ratelimit-remaining"]).toBe("0");
    expect(await t.database.db.checkoutSession.count()).toBe(before + allowed);

    // Another address visits as usual.
    expect((await requestFrom("127.0.0.12", `/c/${link.body.id}`)).status).toBe(303);
  });

  it("finding 5: concurrent payWithTestWallet calls from one address are refused with RATE_LIMITED; another address is unaffected", async () => {
    const m = await t.createMerchant();
    await t.app.ledger.simulatedNetwork(Networks.TESTNET)!.fund(m.wallet.publicKey());
    const paymentId = await sandboxPayment(m.sandboxKey);

    const started = Date.now();
    const calls = await Promise.all(
      Array.from({ length: 30 }, () =>
        graphqlFrom("127.0.0.21", "mutation ($id: ID!) { payWithTestWallet(paymentId: $id) { successful } }", { id: paymentId }),
      ),
    );
    // 10 points each (and 1 at the door) of 20 a second: at most two calls a window run, the rest
    // never start (how many run depends on how the doors and the executions interleave).
    const ran = calls.filter((c) => !isRateLimited(c)).length;
    expect(ran).toBeLessThanOrEqual(2 * windowsSince(started));
    const refused = calls.filter(isRateLimited);
    expect(refused).toHaveLength(30 - ran);
    expect(refused[0].errors[0].extensions.retryAfter).toBeGreaterThanOrEqual(1);

    const other = await graphqlFrom("127.0.0.22", "query ($id: ID!) { checkout(id: $id) { id } }", { id: paymentId });
    expect(other.errors).toBeUndefined();
    expect(other.data.checkout.id).toBe(paymentId);
  });

  it("finding 5: prepareCheckoutTransaction floods from one address are refused before they reach Horizon", async () => {
    const m = await t.createMerchant();
    const paymentId = await sandboxPayment(m.sandboxKey);
    const prepare = `mutation ($id: ID!, $payer: String!) { prepareCheckoutTransaction(paymentId: $id, payerAddress: $payer) { xdr } }`;
    const started = Date.now();
    const calls = await Promise.all(
      Array.from({ length: 20 }, () => graphqlFrom("127.0.0.31", prepare, { id: paymentId, payer: m.wallet.publicKey() })),
    );
    const ran = calls.filter((c) => !isRateLimited(c)).length;
    expect(ran).toBeLessThanOrEqual(4 * windowsSince(started));
    expect(calls.filter(isRateLimited)).toHaveLength(20 - ran);
    // A payer at another address is not limited: its prepare reaches the ledger (which answers that
    // this unfunded account must be funded first).
    const alone = await graphqlFrom("127.0.0.32", prepare, { id: paymentId, payer: m.wallet.publicKey() });
    expect(alone.errors[0]).toMatchObject({ extensions: { code: "BAD_REQUEST" }, message: "Payer address: no account has this address on the ledger yet; fund it first, or pay from another wallet" });
  });

  it("finding 5: checkout queries and subscriptions over /graphql/stream spend the address's budget", async () => {
    const m = await t.createMerchant();
    const paymentId = await sandboxPayment(m.sandboxKey);
    await inOneWindow(async (attempt) => {
      const stream = (query: string) =>
        requestFrom(`127.0.0.${40 + attempt}`, "/graphql/stream", {
          method: "POST",
          headers: { "content-type": "application/json", accept: "text/event-stream" },
          body: JSON.stringify({ query, variables: { id: paymentId } }),
        });
      for (const size of aliasBatches(PUBLIC_PER_SECOND)) {
        expect((await stream(`query ($id: ID!) { ${aliases(size, "checkout(id: $id) { id }")} }`)).text).toContain(paymentId);
      }
      // The refused subscription gets its one error event and the stream ends.
      const refused = await stream("subscription ($id: ID!) { checkout(id: $id) { id } }");
      expect(refused.text).toContain('"code":"RATE_LIMITED"');
      expect(refused.text).not.toContain(paymentId);
    });
  });

  it("finding 5: requests with no key or a wrong key spend the address's budget, then answer 429", async () => {
    await inOneWindow(async (attempt) => {
      const answers = [];
      for (let i = 0; i < PUBLIC_PER_SECOND + 5; i++) {
        answers.push(await requestFrom(`127.0.0.${50 + attempt}`, "/api/v1/payments", { headers: { authorization: "Bearer sk_test_guess" } }));
      }
      const statuses = answers.map((a) => a.status);
      expect(statuses.slice(0, PUBLIC_PER_SECOND)).toEqual(Array(PUBLIC_PER_SECOND).fill(401));
      expect(statuses.at(-1)).toBe(429);
      expect(answers.at(-1)!.headers["retry-after"]).toBe("1");
    });
  });
});

describe("finding 5: how requests are counted", () => {
  it("finding 5: an operation costs its distinct root fields, fragments read once, the costlier public operations more", () => {
    expect(operationPoints(parse(`{ ${aliases(300, "payments { pageInfo { hasNextPage } }")} }`))).toBe(300);
    // Fragments that spread one another twice over would be 2^20 fields if read naively.
    const chain = Array.from({ length: 20 }, (_, i) => `fragment F${i} on Query { f${i}: checkout(id: "x") { id } ...F${i + 1} ...F${i + 1} }`);
    chain.push(`fragment F20 on Query { last: checkout(id: "x") { id } }`);
    expect(operationPoints(parse(`{ ...F0 } ${chain.join(" ")}`))).toBe(21);
    expect(operationPoints(parse(`mutation { payWithTestWallet(paymentId: "x") { successful } }`))).toBe(10);
    expect(operationPoints(parse(`mutation { a: prepareCheckoutTransaction(paymentId: "x", payerAddress: "G") { xdr } b: submitCheckoutTransaction(paymentId: "x", signedXdr: "") { txHash } }`))).toBe(10);
  });

  it("finding 5: IPv6 callers are counted per /64 and IPv4-mapped addresses as IPv4", () => {
    expect(addressBucket("2001:db8:1:2:aaaa::1")).toBe(addressBucket("2001:db8:1:2:ffff::2"));
    expect(addressBucket("2001:db8:1:2::1")).not.toBe(addressBucket("2001:db8:1:3::1"));
    expect(addressBucket("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(addressBucket("203.0.113.9")).toBe("203.0.113.9");
  });
});

// On PostgreSQL the counts live in the database: two hosts (here two app instances on one schema)
// spend one budget, each reserving a tenth of it at a time. SQLite serves one host, whose workers share the primary's counts (cluster.test.ts).
if (dialect === "postgresql") {
  it("finding 5: two hosts on one PostgreSQL database share one key's budget", async () => {
    const database = openDatabase(t.config.databaseUrl);
    const otherApp = buildApp({ ...t.deps, db: database.db });
    const other = await serve(otherApp, { port: 0, host: "127.0.0.1" });
    try {
      // One budget of 5 for the key, whichever host answered; a budget per host (or a host counting
      // alone, in its insurance memory, because the table is missing) would let 10 through.
      const merchants = await Promise.all(Array.from({ length: 10 }, () => t.createMerchant()));
      await inOneWindow(async (attempt) => {
        const m = merchants[attempt - 1]!;
        const get = (base: string) => fetch(`${base}/api/v1/payments`, { headers: { authorization: `Bearer ${m.liveKey}` } });
        const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => get(i % 2 ? other.url : t.url)));
        expect(answers.filter((a) => a.status === 200)).toHaveLength(LIVE_PER_SECOND);
        expect(answers.filter((a) => a.status === 429)).toHaveLength(20 - LIVE_PER_SECOND);
      });

      // A budget of 25 is reserved two points at a time per host: never more than 25 a window pass,
      // and at most one reserved point per host goes unspent.
      await inOneWindow(async (attempt) => {
        const n = merchants[5 + attempt - 1]!;
        const getSandbox = (base: string) => fetch(`${base}/api/v1/payments`, { headers: { authorization: `Bearer ${n.sandboxKey}` } });
        const sandboxAnswers = await Promise.all(Array.from({ length: 60 }, (_, i) => getSandbox(i % 2 ? other.url : t.url)));
        const allowedSandbox = sandboxAnswers.filter((a) => a.status === 200).length;
        expect(allowedSandbox).toBeGreaterThanOrEqual(SANDBOX_PER_SECOND - 2);
        expect(allowedSandbox).toBeLessThanOrEqual(SANDBOX_PER_SECOND);
        expect(sandboxAnswers.filter((a) => a.status === 429)).toHaveLength(60 - allowedSandbox);
      });
    } finally {
      await other.close();
      await otherApp.stop();
      await database.close();
    }
  });
}
