// How a payer pays one payment: its settlement wallet plus a correlation the ledger carries back.
// Wallets with muxed-account support pay the M... address (the muxed id is the payment's memo id);
// the others pay the plain G... address with that number as an id memo. Either way the streamer
// matches the incoming payment to exactly this payment.
import { Account, MuxedAccount } from "@stellar/stellar-sdk";
import type { Payment } from "../../generated/sqlite/client.ts";
import { formatStroops } from "../../shared/money.ts";

export interface PaymentInstructions {
  destination: string;
  muxed_destination: string;
  memo_type: "id";
  memo: string;
  network_passphrase: string;
  sep7_uri: string;
}

type InstructionFields = Pick<
  Payment,
  "settlementAddress" | "memoId" | "networkPassphrase" | "amount" | "settlementAssetCode" | "settlementAssetIssuer"
>;

/** The M... address of `address` with muxed id `memoId`. */
export const muxedAddress = (address: string, memoId: string) =>
  new MuxedAccount(new Account(address, "0"), memoId).accountId();

/** A SEP-7 `web+stellar:pay` URI; a plain destination with an id memo works in every SEP-7 wallet. */
export function sep7PayUri(p: InstructionFields): string {
  const params: [string, string][] = [
    ["destination", p.settlementAddress],
    ["amount", formatStroops(p.amount)],
  ];
  if (p.settlementAssetIssuer) {
    params.push(["asset_code", p.settlementAssetCode], ["asset_issuer", p.settlementAssetIssuer]);
  }
  params.push(["memo", p.memoId], ["memo_type", "MEMO_ID"], ["network_passphrase", p.networkPassphrase]);
  return `web+stellar:pay?${params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&")}`;
}

export function paymentInstructions(p: InstructionFields): PaymentInstructions {
  return {
    destination: p.settlementAddress,
    muxed_destination: muxedAddress(p.settlementAddress, p.memoId),
    memo_type: "id",
    memo: p.memoId,
    network_passphrase: p.networkPassphrase,
    sep7_uri: sep7PayUri(p),
  };
}
