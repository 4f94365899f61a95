// The background statements read their rows through an index, on SQLite (where a slow statement
// holds the whole process: better-sqlite3 runs synchronously). Each one the outbox feed, the
// retention purger and the expiry sweeper run is recorded and EXPLAINed: none may walk a whole
// table that grows with payments, and one picking rows by a list of keys (`col IN (json_each(?))`)
// must seek those keys rather than walk another index testing each row against the list. Both
// mistakes were made once, and left a service with a million payments answering nothing for
// minutes: the feed's `seq > ? OR seq IN (...)` scanned the outbox every 100 ms, and the purge's
// `id IN (...) AND status = ?` walked every succeeded delivery per chunk.
import BetterSqlite3 from "better-sqlite3";
import { afterAll, expect, it } from "vitest";
import { directSql, sqlitePath } from "../src/db/client.ts";
import type { BatchStep, Statement } from "../src/db/direct-sql.ts";
import { createEventFeed } from "../src/modules/events/events.feed.ts";
import { outboxEventsAfter } from "../src/modules/events/events.store.ts";
import { createExpirySweeper } from "../src/modules/payments/expiry-sweeper.ts";
import { SEARCH_TERMS_BACKFILL, createSearchTermsBackfill } from "../src/modules/payments/payment-search-backfill.ts";
import { createRetentionPurger } from "../src/modules/retention/retention-purger.ts";
import { sqlitePlan } from "./support/sqlite-plan.ts";
import { startTestAppWithMerchant } from "./support/test-app.ts";

const { t, merchant } = await startTestAppWithMerchant();
const DAY = 24 * 60 * 60_000;
/** the tables that grow with the payments taken */
const GROWING = ["Payment", "PaymentSearchTerm", "Event", "WebhookDelivery", "WebhookAttempt", "CheckoutSession", "Invoice", "LedgerPayment", "IdempotencyRecord"];

const recorded: Statement[] = [];
const direct = directSql(t.deps.db);
const all = direct.all.bind(direct);
const batch = direct.batch.bind(direct);
direct.all = (text, params) => {
  recorded.push({ text, params });
  return all(text, params);
};
direct.batch = (steps: BatchStep[]) =>
  batch(
    steps.map((step) => (before: Parameters<Exclude<BatchStep, Statement>>[0]) => {
      const statement = typeof step === "function" ? step(before) : step;
      recorded.push(statement);
      return statement;
    }),
  );
const explain = new BetterSqlite3(sqlitePath(t.config.databaseUrl), { readonly: true });
afterAll(async () => {
  explain.close();
  await t.close();
});

it("the outbox feed, the retention purge, expiry and the search terms backfill seek their rows, walking no growing table", async () => {
  const key = merchant.sandboxKey;
  // Something for each: payments due to expire, succeeded webhook deliveries and their events to purge.
  const endpoint = (await t.api("POST", "/webhook-endpoints", { key, body: { url: "https://example.test/hook", enabled_events: ["*"] } })).body.id;
  for (let i = 0; i < 3; i++) await t.api("POST", "/payments", { key, body: { amount: "1", expires_in_minutes: 5 } });
  const now = t.clock.now();
  await t.deps.db.event.updateMany({ data: { fannedOutAt: now } });
  const scope = { organizationId: merchant.organizationId, environment: "sandbox" };
  for (const [i, event] of (await t.deps.db.event.findMany({ take: 2 })).entries()) {
    await t.deps.db.webhookDelivery.create({
      data: {
        id: `whd_plan${i}`, ...scope, endpointId: endpoint, eventId: event.id, eventType: event.type, status: "succeeded",
        attemptCount: 1, requestPayload: "{}", createdAt: now, updatedAt: now,
      },
    });
  }
  await t.deps.db.backfill.create({ data: { name: SEARCH_TERMS_BACKFILL } });

  recorded.length = 0;
  expect(await createSearchTermsBackfill(t.deps, { batchSize: 2 }).runOnce()).toBe(1);
  const feed = createEventFeed(t.deps);
  await feed.listen(() => {});
  await feed.poll();
  await feed.stop();
  await outboxEventsAfter(t.deps.db, 2, [1], 1000); // with a gap re-read
  t.clock.advance(5 * 60_000);
  expect(await createExpirySweeper(t.deps).runOnce()).toBe(3);
  t.clock.advance(40 * DAY);
  const purged = await createRetentionPurger(t.deps, { chunkSize: 2 }).runOnce();
  expect(purged.deliveries).toBeGreaterThan(0);
  expect(purged.events).toBeGreaterThan(0);

  const texts = new Map(recorded.map((s) => [s.text, s]));
  expect(texts.size).toBeGreaterThan(5);
  for (const { text, params } of texts.values()) {
    const plan = sqlitePlan(explain, text, params);
    const why = `${text}\n${plan.join("\n")}`;
    // A scan is a walk of the table unless it only takes the first rows of its order (no condition, a limit).
    const firstRowsOnly = !/ where /i.test(text) && / limit /i.test(text);
    for (const table of GROWING) {
      if (!firstRowsOnly) expect(plan.some((line) => line === `SCAN ${table}` || line.startsWith(`SCAN ${table} `)), why).toBe(false);
    }
    for (const [, table, column] of text.matchAll(/(?:from|update|FROM|UPDATE) "(\w+)"[^()]*?"(\w+)" IN \(SELECT value FROM json_each/g)) {
      // the column, or the rowid it stands for (an INTEGER PRIMARY KEY)
      expect(plan.some((line) => new RegExp(`^SEARCH ${table} USING .*\\(.*\\b(${column}|rowid)=\\?`).test(line)), why).toBe(true);
    }
  }
});
