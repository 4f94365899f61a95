// How a payer pays one payment: its settlement wallet plus a correlation the ledger carries back.
// Wallets with muxed-account support pay the M... address (the muxed id is the payment's memo id);
// the others pay the plain G... address with that number as an id memo. Either way the streamer
// matches the incoming payment to exactly this payment.
import { StrKey } from "@stellar/stellar-sdk";
import { z } from "zod";
import type { Payment } from "../../generated/sqlite/client.ts";
import { formatStroops } from "../../shared/money.ts";

export const paymentInstructionsJsonSchema = z
  .object({
    destination: z.string().meta({ description: "the settlement wallet (G...)" }),
    muxed_destination: z.string().meta({ description: "the settlement wallet muxed with the memo id (M...), for wallets that support it" }),
    memo_type: z.literal("id"),
    memo: z.string().meta({ description: "the id memo to send with a payment to `destination`" }),
    network_passphrase: z.string(),
    sep7_uri: z.string().meta({ description: "a SEP-7 web+stellar:pay URI" }),
  })
  .meta({ id: "PaymentInstructions", description: "How to pay the payment on the Stellar ledger" });

export type PaymentInstructions = z.infer<typeof paymentInstructionsJsonSchema>;

type InstructionFields = Pick<
  Payment,
  "settlementAddress" | "memoId" | "networkPassphrase" | "amount" | "settlementAssetCode" | "settlementAssetIssuer"
>;

// Every payment view carries its M... address. Decoding the wallet's G... address (base32 and a
// checksum) is most of the cost, and a service has few wallets: their raw keys are kept.
const walletKeys = new Map<string, Buffer>();
const MAX_WALLET_KEYS = 10_000;

function walletKey(address: string): Buffer {
  let key = walletKeys.get(address);
  if (!key) {
    if (walletKeys.size >= MAX_WALLET_KEYS) walletKeys.clear();
    walletKeys.set(address, (key = StrKey.decodeEd25519PublicKey(address)));
  }
  return key;
}

/** The M... address of `address` with muxed id `memoId` (SEP-23: the key, then the id big-endian). */
export function muxedAddress(address: string, memoId: string): string {
  const id = Buffer.alloc(8);
  id.writeBigUInt64BE(BigInt(memoId));
  return StrKey.encodeMed25519PublicKey(Buffer.concat([walletKey(address), id]));
}

/** A SEP-7 `web+stellar:pay` URI; a plain destination with an id memo works in every SEP-7 wallet. */
function sep7PayUri(p: InstructionFields): string {
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

// Every view of a payment carries its instructions (its JSON, webhook events, lists, the checkout page
// that polls), and the M... address and URI are most of what a payment's JSON costs to build (a page
// of 20 payments: ~40 % of it). They depend on these fields alone, so the recent ones are kept.
const recentInstructions = new Map<string, Readonly<PaymentInstructions>>();
const MAX_RECENT_INSTRUCTIONS = 10_000;

export function paymentInstructions(p: InstructionFields): Readonly<PaymentInstructions> {
  const key = `${p.settlementAddress} ${p.memoId} ${p.networkPassphrase} ${p.amount} ${p.settlementAssetCode} ${p.settlementAssetIssuer}`;
  let instructions = recentInstructions.get(key);
  if (!instructions) {
    if (recentInstructions.size >= MAX_RECENT_INSTRUCTIONS) recentInstructions.clear();
    instructions = Object.freeze({
      destination: p.settlementAddress,
      muxed_destination: muxedAddress(p.settlementAddress, p.memoId),
      memo_type: "id",
      memo: p.memoId,
      network_passphrase: p.networkPassphrase,
      sep7_uri: sep7PayUri(p),
    });
    recentInstructions.set(key, instructions);
  }
  return instructions;
}
