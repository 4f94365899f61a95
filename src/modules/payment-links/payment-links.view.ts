// The Payment link JSON (object "payment_link").
import { z } from "zod";
import { ENVIRONMENTS, type Environment } from "../../context.ts";
import type { PaymentLink } from "../../generated/sqlite/client.ts";
import { assetRef, parseAssetList } from "../../shared/assets.ts";
import { amountJsonSchema, assetRefJsonSchema, metadataJsonSchema, timestampJsonSchema } from "../../shared/json-schemas.ts";
import { formatStroops } from "../../shared/money.ts";
import { deserializeMetadata } from "../../shared/validation.ts";

/** The id already carries `plink_`, so the path is /c/plink_<...> as the spec shows. */
export const paymentLinkUrl = (publicUrl: string, id: string) => `${publicUrl}/c/${id}`;

export const paymentLinkJsonSchema = z
  .object({
    id: z.string().meta({ description: "prefix plink_" }),
    object: z.literal("payment_link"),
    amount: amountJsonSchema,
    settlement_asset: assetRefJsonSchema,
    allowed_assets: z.array(assetRefJsonSchema),
    active: z.boolean(),
    url: z.url().meta({ description: "each visit opens a new checkout session: /c/<link id>" }),
    environment: z.enum(ENVIRONMENTS),
    created_at: timestampJsonSchema,
    updated_at: timestampJsonSchema,
    description: z.string().nullable(),
    metadata: metadataJsonSchema,
  })
  .meta({ id: "PaymentLink", description: "A reusable link to pay a fixed amount" });

export type PaymentLinkJson = z.infer<typeof paymentLinkJsonSchema>;

export function paymentLinkJson(l: PaymentLink, publicUrl: string): PaymentLinkJson {
  return {
    id: l.id,
    object: "payment_link",
    amount: formatStroops(l.amount),
    settlement_asset: assetRef({ code: l.settlementAssetCode, issuer: l.settlementAssetIssuer }),
    allowed_assets: parseAssetList(l.allowedAssets).map(assetRef),
    active: l.active,
    url: paymentLinkUrl(publicUrl, l.id),
    environment: l.environment as Environment,
    created_at: l.createdAt.toISOString(),
    updated_at: l.updatedAt.toISOString(),
    description: l.description,
    metadata: deserializeMetadata(l.metadata),
  };
}
