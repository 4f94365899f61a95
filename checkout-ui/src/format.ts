// Text the page shows: amounts without trailing zeros, asset names, countdowns, failure reasons.
import type { AssetRef } from "./api.ts";

/** "12.5000000" -> "12.5"; amounts stay strings, never floats. */
export function formatAmount(amount: string): string {
  if (!amount.includes(".")) return amount;
  return amount.replace(/0+$/, "").replace(/\.$/, "");
}

export const assetLabel = (asset: AssetRef) => asset.assetCode;
/** "12.5 XLM" */
export const money = (amount: string, asset: AssetRef | null) => `${formatAmount(amount)}${asset ? ` ${assetLabel(asset)}` : ""}`;
export const assetKey = (asset: AssetRef) => (asset.issuerAddress ? `${asset.assetCode}:${asset.issuerAddress}` : asset.assetCode);
export const shortAddress = (address: string) => `${address.slice(0, 6)}…${address.slice(-6)}`;

export const secondsLeft = (until: Date, now = Date.now()) => Math.floor((until.getTime() - now) / 1000);

/** "59:07" or "1 h 05 min" until `until`; null once it has passed. */
export function countdown(until: Date, now = Date.now()): string | null {
  const seconds = secondsLeft(until, now);
  if (seconds <= 0) return null;
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return `${h} h ${String(m).padStart(2, "0")} min`;
  return `${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}`;
}

// stellar-core result codes a payer may meet, in words.
const REASONS: Record<string, string> = {
  tx_bad_seq: "The wallet's account sequence was out of date. Please try again.",
  tx_bad_auth: "The transaction was not signed by the paying account.",
  tx_insufficient_balance: "The paying account does not hold enough XLM to pay and keep its minimum balance.",
  tx_insufficient_fee: "The network fee was too low. Please try again.",
  tx_no_source_account: "The paying account does not exist on the network.",
  tx_too_late: "The transaction was signed too late and has expired. Please try again.",
  op_underfunded: "The paying account does not hold enough of the asset.",
  op_no_trust: "An account in the payment has no trustline for the asset.",
  op_src_no_trust: "The paying account has no trustline for the asset it pays with.",
  op_no_destination: "The merchant's account does not exist on this network.",
  op_line_full: "The merchant's account cannot receive more of this asset.",
  op_too_few_offers: "There is not enough liquidity to convert the asset right now.",
  op_over_source_max: "The conversion rate moved beyond the quoted maximum. Please try again.",
  op_under_dest_min: "The conversion would deliver less than required. Please try again.",
};

export function describeFailure(reason: string | null): string {
  if (!reason) return "The payment failed on the Stellar network.";
  const codes = reason.match(/\b(tx|op)_[a-z_]+\b/g) ?? [];
  const words = codes.map((code) => REASONS[code]).find(Boolean);
  return words ?? reason;
}
