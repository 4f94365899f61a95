import { z } from "zod";
import { listQuerySchema } from "../../shared/pagination.ts";
import { allowedAssetsSchema, amountSchema, assetRefSchema, descriptionSchema, metadataSchema } from "../../shared/validation.ts";

export const createPaymentLinkSchema = z.strictObject({
  amount: amountSchema,
  settlement_asset: assetRefSchema.optional(),
  allowed_assets: allowedAssetsSchema.optional(),
  description: descriptionSchema.optional(),
  metadata: metadataSchema.optional(),
});

export type CreatePaymentLinkInput = z.output<typeof createPaymentLinkSchema>;

/** Links have no status; `active` ("true" | "false") filters instead. */
export const listPaymentLinksSchema = listQuerySchema({
  active: z.enum(["true", "false"]).transform((v) => v === "true").optional(),
});
