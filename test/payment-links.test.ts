import { describe, expect, it } from "vitest";
import { visitPaymentLink } from "../src/modules/payment-links/payment-links.service.ts";
import { drawingMemoIds } from "./support/memo-ids.ts";
import { startTestAppWithMerchant } from "./support/test-app.ts";

const { t, merchant } = await startTestAppWithMerchant();

const createLink = (body: Record<string, unknown>, key = merchant.sandboxKey) => t.api("POST", "/payment-links", { key, body });
const visit = (id: string, method = "GET") => fetch(`${t.url}/c/${id}`, { method, redirect: "manual" });

describe("POST /payment-links", () => {
  it("creates an active link with its url and the key's environment", async () => {
    const res = await createLink({ amount: "15", description: "T-shirt", metadata: { sku: "ts-1" } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      object: "payment_link",
      amount: "15.0000000",
      settlement_asset: { asset_code: "XLM", issuer_address: null },
      allowed_assets: [{ asset_code: "XLM", issuer_address: null }],
      active: true,
      url: `http://pay.example.test/c/${res.body.id}`,
      environment: "sandbox",
      description: "T-shirt",
      metadata: { sku: "ts-1" },
    });
    expect(res.body.id).toMatch(/^plink_[0-9A-Za-z]{16,}$/);
    const live = await createLink({ amount: "1" }, merchant.liveKey);
    expect(live.body.environment).toBe("production");
  });

  it.each([
    [{ amount: "1", allowed_assets: [] }, "allowed_assets must have at least 1 item"],
    [{ amount: "-1" }, "amount must match ^\\d+(\\.\\d{1,7})?$"],
    [{}, "amount is required"],
    [{ amount: "1", allowed_assets: [{ asset_code: "USDC", issuer_address: null }] }, "allowed_assets[0].issuer_address must be the issuer's Stellar public key (G...)"],
  ])("refuses %j with 400", async (body, message) => {
    const res = await createLink(body);
    expect(res).toMatchObject({ status: 400, body: { error: message } });
  });

  it("refuses an asset that is not enabled, and a merchant without a wallet, with 400", async () => {
    const usdc = { asset_code: "USDC", issuer_address: merchant.wallet.publicKey() };
    const notEnabled = await createLink({ amount: "1", allowed_assets: [usdc] });
    expect(notEnabled.status).toBe(400);
    expect(notEnabled.body.error).toMatch(/^allowed_assets\[0\] USDC:G[A-Z0-9]+ is not enabled for this organization$/);
    const bare = await t.createMerchant({ wallet: false });
    expect((await createLink({ amount: "1" }, bare.sandboxKey)).body).toEqual({ error: "Settlement wallet is not configured" });
  });
});

describe("GET /payment-links/{id}, /deactivate, /activate", () => {
  it("reads a link; deactivate and activate toggle active (and repeat harmlessly)", async () => {
    const link = await createLink({ amount: "2" });
    expect((await t.api("GET", `/payment-links/${link.body.id}`, { key: merchant.sandboxKey })).body).toEqual(link.body);
    const off = await t.api("POST", `/payment-links/${link.body.id}/deactivate`, { key: merchant.sandboxKey });
    expect(off).toMatchObject({ status: 200, body: { id: link.body.id, active: false } });
    expect((await t.api("POST", `/payment-links/${link.body.id}/deactivate`, { key: merchant.sandboxKey })).body.active).toBe(false);
    const on = await t.api("POST", `/payment-links/${link.body.id}/activate`, { key: merchant.sandboxKey });
    expect(on).toMatchObject({ status: 200, body: { active: true } });
  });

  it("answers 404 for unknown and foreign links", async () => {
    const link = await createLink({ amount: "2" });
    const other = await t.createMerchant();
    expect((await t.api("GET", `/payment-links/${link.body.id}`, { key: merchant.liveKey })).status).toBe(404);
    expect((await t.api("POST", `/payment-links/${link.body.id}/deactivate`, { key: other.sandboxKey })).body).toEqual({
      error: "Not found",
    });
    expect((await t.api("POST", "/payment-links/plink_nope00000000000000/activate", { key: merchant.sandboxKey })).status).toBe(404);
  });
});

describe("GET /c/plink_<id> (public)", () => {
  it("answers 303 to a brand-new checkout session on every visit, without an API key", async () => {
    const link = await createLink({ amount: "7.25", description: "Ticket" });
    const first = await visit(link.body.id);
    const second = await visit(link.body.id);
    expect(first.status).toBe(303);
    expect(second.status).toBe(303);
    const [a, b] = [first.headers.get("location")!, second.headers.get("location")!];
    expect(a).toMatch(/^http:\/\/pay\.example\.test\/c\/cs_[0-9A-Za-z]{16,}$/);
    expect(b).not.toBe(a);

    const sessionId = a.split("/c/")[1]!;
    const session = await t.api("GET", `/checkout-sessions/${sessionId}`, { key: merchant.sandboxKey });
    expect(session.body).toMatchObject({ status: "open", amount: "7.2500000", payment_link_id: link.body.id, payment_status: "pending" });
    const payment = await t.api("GET", `/payments/${session.body.payment_intent_id}`, { key: merchant.sandboxKey });
    expect(payment.body).toMatchObject({ source_type: "payment_link", description: "Ticket", amount: "7.2500000" });
  });

  it("draws the new payment's memo id again when the one drawn is taken: one session, one payment", async () => {
    const link = await createLink({ amount: "2" });
    await visit(link.body.id);
    const { memoId: taken } = await t.database.db.payment.findFirstOrThrow({ where: { sourceType: "payment_link" } });
    const { ids, drawn } = drawingMemoIds([taken]);
    const sessions = await t.database.db.checkoutSession.count();
    const session = await visitPaymentLink({ ...t.deps, ids }, link.body.id);
    expect(drawn).toHaveLength(2);
    expect(await t.database.db.payment.findUniqueOrThrow({ where: { id: session.paymentId } })).toMatchObject({ memoId: drawn[1] });
    expect(await t.database.db.checkoutSession.count()).toBe(sessions + 1);
  });

  it("answers 410 with a page saying the link is inactive, and creates nothing", async () => {
    const link = await createLink({ amount: "1" });
    await t.api("POST", `/payment-links/${link.body.id}/deactivate`, { key: merchant.sandboxKey });
    const before = await t.database.db.checkoutSession.count();
    const res = await visit(link.body.id);
    expect(res.status).toBe(410);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await res.text()).toContain("This payment link is inactive");
    expect(await t.database.db.checkoutSession.count()).toBe(before);

    await t.api("POST", `/payment-links/${link.body.id}/activate`, { key: merchant.sandboxKey });
    expect((await visit(link.body.id)).status).toBe(303);
  });

  it("answers 404 for an unknown link and 405 for other methods", async () => {
    expect((await visit("plink_doesnotexist00000000")).status).toBe(404);
    const link = await createLink({ amount: "1" });
    const post = await visit(link.body.id, "POST");
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET");
  });
});
