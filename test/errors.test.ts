// Issue 14 item 2, errors once: one error family with a code; REST maps the code to a status in one
// function, GraphQL to extensions.code in another; an unknown error answers 500 / INTERNAL with
// nothing internal shown, and writes one log line carrying the request's id (its X-Request-Id).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresSchema } from "../src/db/client.ts";
import { DomainError, type ErrorCode } from "../src/errors.ts";
import { graphqlErrorOf } from "../src/graphql/errors.ts";
import { httpStatusOf } from "../src/rest/errors.ts";
import { type CapturedLog, captureLog } from "./support/captured-log.ts";
import { subscribeSse } from "./support/sse.ts";
import { type Merchant, type TestApp, dialect, startTestApp } from "./support/test-app.ts";

// The README's table of errors.
const ERRORS: [ErrorCode, number][] = [
  ["BAD_REQUEST", 400],
  ["BAD_USER_INPUT", 400],
  ["UNAUTHENTICATED", 401],
  ["NOT_FOUND", 404],
  ["METHOD_NOT_ALLOWED", 405],
  ["CONFLICT", 409],
  ["GONE", 410],
  ["PAYLOAD_TOO_LARGE", 413],
  ["UNSUPPORTED_MEDIA_TYPE", 415],
  ["RATE_LIMITED", 429],
  ["UNAVAILABLE", 503],
];

describe("the mapping of each code", () => {
  it.each(ERRORS)("%s is %i on REST and the same code on GraphQL", (code, status) => {
    expect(httpStatusOf(code)).toBe(status);
    const error = graphqlErrorOf(new DomainError(code, "what went wrong"));
    expect(error.toJSON()).toEqual({ message: "what went wrong", extensions: { code } });
  });
});

describe("an unknown error", () => {
  let t: TestApp;
  let log: CapturedLog;
  let merchant: Merchant;
  let linkId: string;
  beforeAll(async () => {
    log = captureLog("info");
    t = await startTestApp({ logger: log.logger });
    merchant = await t.createMerchant();
    linkId = (await t.api("POST", "/payment-links", { key: merchant.sandboxKey, body: { amount: "1" } })).body.id;
    // A table gone under the service is what a bug or a failing database looks like from inside:
    // the driver's error names the table, and none of it may reach the caller.
    for (const table of ["Customer", "CheckoutSession", "PaymentLink"]) {
      const name = dialect === "postgresql" ? `"${postgresSchema(t.config.databaseUrl)}"."${table}"` : `"${table}"`;
      await t.database.db.$executeRawUnsafe(`ALTER TABLE ${name} RENAME TO "${table}Gone"`);
    }
  });
  afterAll(() => t?.close());

  const errorLines = () => log.lines().filter((line) => line.level === "error");
  const until = async (what: () => boolean) => {
    const deadline = Date.now() + 5000;
    while (!what()) {
      if (Date.now() > deadline) throw new Error("timed out waiting for a log line");
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  /** The error lines `request` wrote: exactly one, carrying its request id, beside its request line. */
  async function expectOneLogLine(request: () => Promise<string | null>) {
    const before = errorLines().length;
    const requestId = await request();
    expect(requestId).toMatch(/^req_[0-9A-Za-z]{24}$/);
    await until(() => log.lines().some((line) => line.message === "request" && line.request_id === requestId));
    const written = errorLines().slice(before);
    expect(written).toHaveLength(1);
    expect(written[0]).toMatchObject({ message: "unexpected error", request_id: requestId });
    // The line has what the answer must not: the error with its stack.
    expect((written[0]!.error as { stack: string }).stack).toMatch(/Gone|does not exist|no such table/);
  }
  const expectNothingInternal = (text: string) => {
    expect(text).not.toMatch(/Customer|CheckoutSession|PaymentLink/); // the tables, not the fields
    expect(text).not.toMatch(/prisma|sqlite|relation|table|stack|\n\s+at /i);
  };

  it("on REST: 500 {\"error\":\"Internal server error\"}", async () => {
    await expectOneLogLine(async () => {
      const res = await t.api("GET", "/customers", { key: merchant.sandboxKey });
      expect(res.status).toBe(500);
      expect(res.raw).toBe('{"error":"Internal server error"}');
      return res.headers.get("x-request-id");
    });
  });

  it("on a payment link visit: a 500 page", async () => {
    await expectOneLogLine(async () => {
      const res = await fetch(`${t.url}/c/${linkId}`, { redirect: "manual" });
      expect(res.status).toBe(500);
      const page = await res.text();
      expect(page).toContain("Something went wrong");
      expectNothingInternal(page);
      return res.headers.get("x-request-id");
    });
  });

  it("on /graphql: INTERNAL, \"Internal server error\"", async () => {
    await expectOneLogLine(async () => {
      const res = await fetch(`${t.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${merchant.sandboxKey}` },
        body: JSON.stringify({ query: "{ customers(first: 1) { edges { node { id } } } }" }),
      });
      const text = await res.text();
      const body = JSON.parse(text);
      expect(body.errors).toEqual([
        { message: "Internal server error", locations: [{ line: 1, column: 3 }], path: ["customers"], extensions: { code: "INTERNAL" } },
      ]);
      expectNothingInternal(text);
      return res.headers.get("x-request-id");
    });
  });

  it("on /graphql/stream, a query: INTERNAL in its next frame", async () => {
    await expectOneLogLine(async () => {
      const sub = await subscribeSse(t.url, "{ customers(first: 1) { edges { node { id } } } }", {}, { authorization: `Bearer ${merchant.sandboxKey}` });
      try {
        const result = await sub.next();
        expect(result.errors).toEqual([expect.objectContaining({ message: "Internal server error", extensions: { code: "INTERNAL" } })]);
        expectNothingInternal(sub.frames.map((f) => f.raw).join("\n"));
        return sub.headers.get("x-request-id");
      } finally {
        sub.close();
      }
    });
  });

  it("on /graphql/stream, a subscription: INTERNAL in its next frame", async () => {
    await expectOneLogLine(async () => {
      const sub = await subscribeSse(t.url, `subscription { checkout(id: "cs_0000000000000000") { paymentId } }`);
      try {
        const result = await sub.next();
        expect(result.errors).toEqual([expect.objectContaining({ message: "Internal server error", extensions: { code: "INTERNAL" } })]);
        expectNothingInternal(sub.frames.map((f) => f.raw).join("\n"));
        return sub.headers.get("x-request-id");
      } finally {
        sub.close();
      }
    });
  });
});

describe("issue 30: no error echoes the request", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  const MARK = "ECHOED";
  /** 300 KB that would come back whole if quoted */
  const large = (head: string) => `${head}${MARK}${"x".repeat(300_000)}`;

  it("issue 30: bodies that are not JSON, or carry a value refused at length, are answered in a few hundred bytes on every door", async () => {
    const post = (path: string, body: string, accept = "application/json") =>
      fetch(`${t.url}${path}`, { method: "POST", headers: { "content-type": "application/json", accept }, body });
    const dateVariable = JSON.stringify({ query: "query ($d: DateTime) { __typename }", variables: { d: large("") } });
    const answers = await Promise.all([
      post("/graphql", large("{")),
      post("/graphql", large("{\"query\": ")),
      post("/graphql", large("[")),
      post("/graphql", large("{"), "text/event-stream"),
      post("/graphql", dateVariable),
      post("/graphql/stream", large("{"), "text/event-stream"),
      post("/graphql/stream", large("{\"query\": "), "text/event-stream"),
      post("/api/v1/customers", large("{")),
      fetch(`${t.url}/graphql?query=${encodeURIComponent("{ __typename }")}&variables=${encodeURIComponent(`{${MARK}${"x".repeat(6000)}`)}`),
    ]);
    for (const answer of answers) {
      const text = await answer.text();
      expect(text, answer.url).toMatch(/error/i);
      expect(text, answer.url).not.toContain(MARK);
      expect(text.length, answer.url).toBeLessThan(1000);
    }
    // The invalid JSON on /graphql is a 400 naming the problem, with no originalError.
    const invalid = await post("/graphql", large("{"));
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toEqual({ errors: [{ message: "POST body sent invalid JSON.", extensions: { code: "BAD_REQUEST" } }] });
  });
});
