// Zod schemas of the pieces every resource's JSON answer is made of. Each view declares its object's
// schema from these and takes its TypeScript type from it (z.infer), so the OpenAPI document
// (src/rest/openapi.ts) and the JSON the code builds cannot disagree.
import { z } from "zod";

/** A JSON Schema as zod writes it, for the overrides that add what zod cannot say (rules between fields). */
export type JsonSchema = z.core.JSONSchema.BaseSchema | boolean;

/** An amount as the API answers it: formatStroops(), always 7 decimal places. */
export const amountJsonSchema = z
  .string()
  .regex(/^\d+\.\d{7}$/)
  .meta({ id: "Amount", description: "A StellarAmount normalized to 7 decimal places", examples: ["25.0000000"] });

export const timestampJsonSchema = z.iso.datetime().meta({
  id: "Timestamp",
  description: "ISO 8601 date-time, UTC (toISOString)",
  // `format: date-time` says it; zod's long regular expression for it would only hide that.
  override: ({ jsonSchema }) => {
    delete jsonSchema.pattern;
  },
});

export const metadataJsonSchema = z
  .record(z.string(), z.string())
  .nullable()
  .meta({ id: "Metadata", description: "StringMetadata: string values, or null when unset" });

export const assetRefJsonSchema = z
  .object({
    asset_code: z.string().meta({ description: "1 to 12 alphanumeric characters; XLM for lumens" }),
    issuer_address: z.string().nullable().meta({ description: "the issuer's public key; null for XLM" }),
  })
  .meta({ id: "AssetRef" });
