// The driver-level reads must return exactly what Prisma returns for the same rows.
import { afterAll, beforeAll, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { hotReads } from "../src/db/hot-reads.ts";
import { type Merchant, type TestApp, startTestApp } from "./support/test-app.ts";

let t: TestApp;
let merchant: Merchant;

beforeAll(async () => {
  t = await startTestApp();
  merchant = await t.createMerchant();
});
afterAll(() => t.close());

it("reads a payment exactly as Prisma does, with every column type set", async () => {
  const created = await t.api("POST", "/payments", {
    key: merchant.sandboxKey,
    body: { amount: "922337203685.4775807", description: "max", metadata: { a: "b" } },
  });
  expect(created.status).toBe(201);
  // Fill the columns a fresh payment leaves null, including a boolean and a second BigInt.
  await t.database.db.payment.update({
    where: { id: created.body.id },
    data: {
      status: "completed",
      late: true,
      amountReceived: 9_223_372_036_854_775_807n,
      confirmedAt: new Date("2026-01-02T03:04:05.678Z"),
      txHash: "a".repeat(64),
      paidAssetCode: "XLM",
    },
  });
  const viaPrisma = await t.database.db.payment.findUnique({ where: { id: created.body.id } });
  const viaDriver = await hotReads(t.database.db).paymentById(created.body.id);
  expect(viaDriver).toEqual(viaPrisma);
  expect(viaDriver!.amount).toBe(9_223_372_036_854_775_807n);
  expect(viaDriver!.late).toBe(true);
  expect(viaDriver!.confirmedAt!.toISOString()).toBe("2026-01-02T03:04:05.678Z");
  expect(await hotReads(t.database.db).paymentById("pay_missing")).toBeNull();
});

it("reads an API key exactly as Prisma does, revocation included", async () => {
  const hash = createHash("sha256").update(merchant.liveKey).digest("hex");
  await t.database.db.apiKey.update({ where: { hash }, data: { revokedAt: new Date("2026-03-04T05:06:07.089Z") } });
  const viaPrisma = await t.database.db.apiKey.findUnique({ where: { hash } });
  const viaDriver = await hotReads(t.database.db).apiKeyByHash(hash);
  expect(viaDriver).toEqual(viaPrisma);
  expect(viaDriver!.revokedAt!.toISOString()).toBe("2026-03-04T05:06:07.089Z");
  expect(await hotReads(t.database.db).apiKeyByHash("0".repeat(64))).toBeNull();
});

it("reads organization settings as Prisma does: wallet, assets oldest first, rates", async () => {
  const { enableAsset, setExchangeRate } = await import("../src/modules/organizations/organizations.service.ts");
  const scope = { organizationId: merchant.organizationId, environment: "sandbox" as const };
  const issuer = merchant.wallet.publicKey();
  await enableAsset(t.deps, { ...scope, code: "USDC", issuer });
  await enableAsset(t.deps, { ...scope, code: "EURC", issuer });
  await setExchangeRate(t.deps, { ...scope, currency: "USD", assetCode: "XLM", price: "0.25" });
  const rows = await hotReads(t.database.db).organizationSettings(scope.organizationId, scope.environment);
  const viaPrisma = await t.database.db.organization.findUnique({
    where: { id: scope.organizationId },
    include: {
      settings: { where: { environment: "sandbox" } },
      assets: { where: { environment: "sandbox" }, orderBy: { createdAt: "asc" } },
      rates: { where: { environment: "sandbox" } },
    },
  });
  expect(rows.organization).toEqual({ name: viaPrisma!.name });
  expect(rows.settings).toEqual({ settlementAddress: issuer, displayName: viaPrisma!.settings[0]!.displayName });
  expect(rows.assets).toEqual(viaPrisma!.assets.map((a) => ({ code: a.code, issuer: a.issuer })));
  expect(rows.assets.map((a) => a.code)).toEqual(["USDC", "EURC"]);
  expect(rows.rates).toEqual([{ currency: "USD", assetCode: "XLM", assetIssuer: "", price: "0.25" }]);
  const none = await hotReads(t.database.db).organizationSettings("org_missing", "sandbox");
  expect(none).toEqual({ organization: null, settings: null, assets: [], rates: [] });
});
