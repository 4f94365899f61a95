// The Payment link JSON (object "payment_link").
import type { PaymentLink } from "../../generated/sqlite/client.ts";
import { assetRef, parseAssetList } from "../../shared/assets.ts";
import { formatStroops } from "../../shared/money.ts";
import { deserializeMetadata } from "../../shared/validation.ts";

/** The id already carries `plink_`, so the path is /c/plink_<...> as the spec shows. */
export const paymentLinkUrl = (publicUrl: string, id: string) => `${publicUrl}/c/${id}`;

export function paymentLinkJson(l: PaymentLink, publicUrl: string) {
  return {
    id: l.id,
    object: "payment_link",
    amount: formatStroops(l.amount),
    settlement_asset: assetRef({ code: l.settlementAssetCode, issuer: l.settlementAssetIssuer }),
    allowed_assets: parseAssetList(l.allowedAssets).map(assetRef),
    active: l.active,
    url: paymentLinkUrl(publicUrl, l.id),
    environment: l.environment,
    created_at: l.createdAt.toISOString(),
    updated_at: l.updatedAt.toISOString(),
    description: l.description,
    metadata: deserializeMetadata(l.metadata),
  };
}
