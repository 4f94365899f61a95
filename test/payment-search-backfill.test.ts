// Payments made before their search terms existed (migration 0021) become findable (#27 item 8):
// migration 0022 schedules the walk in a database that has payments, and the background backfill
// (payments/payment-search-backfill.ts) writes their terms a batch at a time, resuming after a
// restart where it stopped, two workers at once taking turns.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { directSql } from "../src/db/client.ts";
import { SEARCH_TERMS_BACKFILL, createSearchTermsBackfill } from "../src/modules/payments/payment-search-backfill.ts";
import { dialect, startTestAppWithMerchant } from "./support/test-app.ts";

const { t, merchant } = await startTestAppWithMerchant();
const direct = directSql(t.deps.db);

/** What 0022 runs in a database that has payments (its own statement, read from the migration). */
const migrationSchedules = readFileSync(new URL(`../prisma/migrations/${dialect}/0022_payment_search_backfill/migration.sql`, import.meta.url), "utf8")
  .split("\n")
  .find((line) => line.startsWith("INSERT INTO \"Backfill\""))!;

const found = async (text: string) => {
  const res = await t.graphql(`query($s: String) { payments(search: $s, first: 50) { edges { node { id } } } }`, { s: text }, merchant.sandboxKey);
  expect(res.body.errors, text).toBeUndefined();
  return (res.body.data.payments.edges as { node: { id: string } }[]).map((e) => e.node.id).sort();
};
const walk = async () => (await direct.all(`SELECT "afterId", "finishedAt" FROM "Backfill" WHERE "name" = '${SEARCH_TERMS_BACKFILL}'`, []))[0];

describe("payments made before their search terms", () => {
  it("a database with no payment schedules no walk, and the backfill finds nothing to do", async () => {
    await direct.batch([{ text: migrationSchedules, params: [] }]);
    expect(await walk()).toBeUndefined();
    expect(await t.app.searchBackfill.runBatch()).toBe(false);
  });

  it("are found by their words once the backfill has run, resumed after a restart, with two workers at once", async () => {
    const old: string[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: `${i + 1}.25`, description: `Heirloom quilt ${i}` } });
      expect(res.status, res.raw).toBe(201);
      old.push(res.body.id);
    }
    // As 0021's predecessors were: no terms.
    await direct.batch([{ text: `DELETE FROM "PaymentSearchTerm"`, params: [] }, { text: migrationSchedules, params: [] }]);
    expect(await found("heirloom")).toEqual([]);
    expect(await walk()).toMatchObject({ afterId: null, finishedAt: null });

    // A worker does one batch of 3 and stops (a restart): the watermark holds what it finished.
    const first = createSearchTermsBackfill(t.deps, { batchSize: 3 });
    expect(await first.runBatch()).toBe(true);
    const sorted = [...old].sort();
    expect((await walk())!.afterId).toBe(sorted[2]);
    expect(await found("heirloom")).toEqual(sorted.slice(0, 3));

    // Two workers after the restart, at once: they take turns, and the walk ends once.
    const [a, b] = [createSearchTermsBackfill(t.deps, { batchSize: 1 }), createSearchTermsBackfill(t.deps, { batchSize: 1 })];
    const [batchesA, batchesB] = await Promise.all([a.runOnce(), b.runOnce()]);
    expect(batchesA + batchesB).toBeGreaterThanOrEqual(4);
    expect((await walk())!.finishedAt).not.toBeNull();
    expect(await found("heirloom")).toEqual(sorted);
    expect(await found("quilt 5.25")).toEqual([old[4]]);
    // A payment made afterwards writes its own terms; the finished walk stays finished.
    const later = await t.api("POST", "/payments", { key: merchant.sandboxKey, body: { amount: "1", description: "Heirloom rug" } });
    expect(await createSearchTermsBackfill(t.deps).runBatch()).toBe(false);
    expect(await found("heirloom rug")).toEqual([later.body.id]);
  });
});
