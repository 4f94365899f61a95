// A payer's signed transaction paying 1 XLM to each payment's muxed destination,
// as a wallet would: the ledger benches submit these to the simulated network.
import { Account, Asset, type Keypair, Networks, Operation, TimeoutInfinite, TransactionBuilder } from "@stellar/stellar-sdk";
import type { SimulatedNetwork } from "../../src/ledger/simulated/index.ts";
import { muxedAddress } from "../../src/modules/payments/payment-instructions.ts";

export function paymentTx(network: SimulatedNetwork, payer: Keypair, payments: { settlementAddress: string; memoId: string }[]) {
  const builder = new TransactionBuilder(new Account(payer.publicKey(), network.sequence(payer.publicKey())!), {
    fee: String(100 * payments.length),
    networkPassphrase: Networks.TESTNET,
  });
  for (const p of payments) {
    builder.addOperation(Operation.payment({ destination: muxedAddress(p.settlementAddress, p.memoId), asset: Asset.native(), amount: "1" }));
  }
  const tx = builder.setTimeout(TimeoutInfinite).build();
  tx.sign(payer);
  return tx;
}
