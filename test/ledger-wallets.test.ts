// Which settlement wallets the ledger streamer watches: each wallet that open payments are paid to,
// per network, where open is pending or expired less than a day ago (a late payment still completes).
import { Keypair, Networks } from "@stellar/stellar-sdk";
import { afterAll, describe, expect, it } from "vitest";
import { setSettlementWallet } from "../src/modules/organizations/organizations.service.ts";
import { startLedgerWorld } from "./support/ledger.ts";

const { t } = await startLedgerWorld("5");
afterAll(() => t.close());

const streamKey = (address: string, network = Networks.TESTNET) => `${network}|${address}`;
const streamed = async () => {
  await t.app.ledger.streamer.refresh();
  return t.app.ledger.streamer.streaming();
};
const pay = async (key: string, body: Record<string, unknown> = {}) => {
  const res = await t.api("POST", "/payments", { key, body: { amount: "1", ...body } });
  expect(res.status).toBe(201);
  return res.body;
};

describe("wallets streamed", () => {
  it("every wallet with a pending payment, on the network of the payment's environment", async () => {
    const merchant = await t.createMerchant();
    const address = merchant.wallet.publicKey();
    expect(await streamed()).not.toContain(streamKey(address));
    await pay(merchant.sandboxKey);
    expect(await streamed()).toContain(streamKey(address));
    expect(await streamed()).not.toContain(streamKey(address, Networks.PUBLIC));
    await pay(merchant.liveKey);
    expect(await streamed()).toContain(streamKey(address, Networks.PUBLIC));
  });

  it("the old wallet as well as the new one, while payments to the old one are open", async () => {
    const merchant = await t.createMerchant({ environments: ["sandbox"] });
    await pay(merchant.sandboxKey);
    const next = Keypair.random().publicKey();
    await setSettlementWallet(t.deps, { organizationId: merchant.organizationId, environment: "sandbox", address: next });
    await pay(merchant.sandboxKey);
    const keys = await streamed();
    expect(keys).toContain(streamKey(merchant.wallet.publicKey()));
    expect(keys).toContain(streamKey(next));
  });

  it("a wallet whose payments all expired: for a day after the last expiry, then no more", async () => {
    const merchant = await t.createMerchant({ environments: ["sandbox"] });
    const key = streamKey(merchant.wallet.publicKey());
    await pay(merchant.sandboxKey, { expires_in_minutes: 5 });
    await pay(merchant.sandboxKey, { expires_in_minutes: 60 });
    t.clock.advance(61 * 60_000);
    expect(await t.app.ledger.sweeper.runOnce()).toBeGreaterThanOrEqual(2);
    expect(await streamed()).toContain(key);
    t.clock.advance(24 * 60 * 60_000 - 2 * 60_000); // the first expired over a day ago, the second not quite
    expect(await streamed()).toContain(key);
    t.clock.advance(2 * 60_000);
    expect(await streamed()).not.toContain(key);
  });
});
