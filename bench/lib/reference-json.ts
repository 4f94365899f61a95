// The spec's payment JSON (object "payment_intent"), built by hand from a row for the plain reference
// (bench/reads.ts): the same bytes as the service's answer, which the bench checks before measuring.
// Everything is derived on each request, as a plain server would: amounts, dates, the M... address
// and the SEP-7 URI.
import { StrKey } from "@stellar/stellar-sdk";
import type { PaymentRow } from "./reference-store.ts";

const STROOPS_PER_UNIT = 10_000_000n;

/** Stroops as the spec's 7-decimal string. */
export const amount = (stroops: bigint) => `${stroops / STROOPS_PER_UNIT}.${(stroops % STROOPS_PER_UNIT).toString().padStart(7, "0")}`;
const asset = (code: string, issuer: string | null) => ({ asset_code: code, issuer_address: issuer });

function muxed(address: string, memoId: string): string {
  const id = Buffer.alloc(8);
  id.writeBigUInt64BE(BigInt(memoId));
  return StrKey.encodeMed25519PublicKey(Buffer.concat([StrKey.decodeEd25519PublicKey(address), id]));
}

function sep7(p: PaymentRow): string {
  const issued = p.settlementAssetIssuer
    ? `&asset_code=${encodeURIComponent(p.settlementAssetCode)}&asset_issuer=${encodeURIComponent(p.settlementAssetIssuer)}`
    : "";
  return `web+stellar:pay?destination=${p.settlementAddress}&amount=${amount(p.amount)}${issued}&memo=${p.memoId}&memo_type=MEMO_ID&network_passphrase=${encodeURIComponent(p.networkPassphrase)}`;
}

export const referencePaymentJson = (p: PaymentRow, publicUrl: string) => ({
  id: p.id,
  object: "payment_intent",
  amount: amount(p.amount),
  settlement_asset: asset(p.settlementAssetCode, p.settlementAssetIssuer),
  allowed_assets: (JSON.parse(p.allowedAssets) as { code: string; issuer: string | null }[]).map((a) => asset(a.code, a.issuer)),
  paid_asset: p.paidAssetCode ? asset(p.paidAssetCode, p.paidAssetIssuer) : null,
  status: p.status,
  description: p.description,
  metadata: p.metadata == null ? null : JSON.parse(p.metadata),
  checkout_url: `${publicUrl}/c/${p.id}`,
  source_type: p.sourceType,
  customer_id: p.customerId,
  payer_address: p.payerAddress,
  tx_hash: p.txHash,
  confirmed_at: p.confirmedAt?.toISOString() ?? null,
  expires_at: p.expiresAt?.toISOString() ?? null,
  created_at: p.createdAt.toISOString(),
  amount_received: amount(p.amountReceived),
  amount_refunded: amount(p.amountRefunded),
  late: p.late,
  failure_reason: p.failureReason,
  pricing_currency: p.pricingCurrency,
  pricing_amount: p.pricingAmount,
  payment_instructions: {
    destination: p.settlementAddress,
    muxed_destination: muxed(p.settlementAddress, p.memoId),
    memo_type: "id",
    memo: p.memoId,
    network_passphrase: p.networkPassphrase,
    sep7_uri: sep7(p),
  },
});

/** "12.5" as stroops, by hand (the bench's body is always a plain positive decimal). */
export function referenceStroops(decimal: string): bigint {
  const [whole = "0", fraction = ""] = decimal.split(".");
  return BigInt(whole) * STROOPS_PER_UNIT + BigInt(fraction.padEnd(7, "0"));
}
