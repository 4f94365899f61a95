// Which settlement wallets the ledger streamer watches (matches its network's stream against): each
// wallet that open payments are paid to, per network, where open is pending or expired less than a
// day ago (a late payment still completes).
import { Keypair, Networks } from "@stellar/stellar-sdk";
import { afterAll, describe, expect, it } from "vitest";
import { setSettlementWallet } from "../src/modules/organizations/organizations.service.ts";
import { startLedgerWorld } from "./support/ledger.ts";

const { t } = await startLedgerWorld("5");
afterAll(() => t.close());

/** Whether the wallet is watched once the set is read again. */
const watched = async (address: string, network = Networks.TESTNET) => {
  await t.app.ledger.streamer.refresh();
  return t.app.ledger.streamer.watches(network, address);
};
const pay = async (key: string, body: Record<string, unknown> = {}) => {
  const res = await t.api("POST", "/payments", { key, body: { amount: "1", ...body } });
  expect(res.status).toBe(201);
  return res.body;
};

describe("wallets watched", () => {
  it("every wallet with a pending payment, on the network of the payment's environment", async () => {
    const merchant = await t.createMerchant();
    const address = merchant.wallet.publicKey();
    expect(await watched(address)).toBe(false);
    await pay(merchant.sandboxKey);
    expect(await watched(address)).toBe(true);
    expect(await watched(address, Networks.PUBLIC)).toBe(false);
    await pay(merchant.liveKey);
    expect(await watched(address, Networks.PUBLIC)).toBe(true);
  });

  it("the old wallet as well as the new one, while payments to the old one are open", async () => {
    const merchant = await t.createMerchant({ environments: ["sandbox"] });
    await pay(merchant.sandboxKey);
    const next = Keypair.random().publicKey();
    await setSettlementWallet(t.deps, { organizationId: merchant.organizationId, environment: "sandbox", address: next });
    await pay(merchant.sandboxKey);
    expect(await watched(merchant.wallet.publicKey())).toBe(true);
    expect(await watched(next)).toBe(true);
  });

  it("a wallet whose payments all expired: for a day after the last expiry, then no more", async () => {
    const merchant = await t.createMerchant({ environments: ["sandbox"] });
    const address = merchant.wallet.publicKey();
    await pay(merchant.sandboxKey, { expires_in_minutes: 5 });
    await pay(merchant.sandboxKey, { expires_in_minutes: 60 });
    t.clock.advance(61 * 60_000);
    expect(await t.app.ledger.sweeper.runOnce()).toBeGreaterThanOrEqual(2);
    expect(await watched(address)).toBe(true);
    t.clock.advance(24 * 60 * 60_000 - 2 * 60_000); // the first expired over a day ago, the second not quite
    expect(await watched(address)).toBe(true);
    t.clock.advance(2 * 60_000);
    expect(await watched(address)).toBe(false);
  });
});
