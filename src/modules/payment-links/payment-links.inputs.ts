import { z } from "zod";
import { listQuerySchema } from "../../shared/pagination.ts";
import { amountSchema, assetRefSchema, descriptionSchema, metadataSchema } from "../../shared/validation.ts";

export const createPaymentLinkSchema = z.strictObject({
  amount: amountSchema,
  settlement_asset: assetRefSchema.optional(),
  allowed_assets: z.array(assetRefSchema).min(1).optional(),
  description: descriptionSchema.optional(),
  metadata: metadataSchema.optional(),
});

export type CreatePaymentLinkInput = z.output<typeof createPaymentLinkSchema>;

/** Links have no status; `active` ("true" | "false") filters instead. */
export const listPaymentLinksSchema = listQuerySchema({
  active: z.enum(["true", "false"]).transform((v) => v === "true").optional(),
});
