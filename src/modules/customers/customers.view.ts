// The Customer JSON (object "customer").
import { z } from "zod";
import type { Customer } from "../../generated/sqlite/client.ts";
import { metadataJsonSchema, timestampJsonSchema } from "../../shared/json-schemas.ts";
import { deserializeMetadata } from "../../shared/validation.ts";

export const customerJsonSchema = z
  .object({
    id: z.string().meta({ description: "prefix cus_" }),
    object: z.literal("customer"),
    email: z.string().nullable(),
    name: z.string().nullable(),
    description: z.string().nullable(),
    metadata: metadataJsonSchema,
    created_at: timestampJsonSchema,
    updated_at: timestampJsonSchema,
  })
  .meta({ id: "Customer", description: "A payer profile" });

export type CustomerJson = z.infer<typeof customerJsonSchema>;

export function customerJson(c: Customer): CustomerJson {
  return {
    id: c.id,
    object: "customer",
    email: c.email,
    name: c.name,
    description: c.description,
    metadata: deserializeMetadata(c.metadata),
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}
