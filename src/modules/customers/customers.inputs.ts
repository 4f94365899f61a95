import { z } from "zod";
import { listQuerySchema } from "../../shared/pagination.ts";
import { descriptionSchema, metadataSchema } from "../../shared/validation.ts";

const customerFields = {
  // Only the format check gets this text; a non-string keeps the shared "must be a string".
  email: z
    .email({ error: (issue) => (issue.code === "invalid_format" ? "must be a valid email address" : undefined) })
    .max(320)
    .nullable()
    .optional(),
  name: z.string().max(256).nullable().optional(),
  description: descriptionSchema.optional(),
  metadata: metadataSchema.optional(),
};

export const createCustomerSchema = z.strictObject(customerFields);
/** An update changes the fields it names; null clears one. */
export const updateCustomerSchema = z.strictObject(customerFields);
export type CustomerInput = z.output<typeof createCustomerSchema>;

export const listCustomersSchema = listQuerySchema({});
