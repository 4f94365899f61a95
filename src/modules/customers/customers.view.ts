import type { Customer } from "../../generated/sqlite/client.ts";
import { deserializeMetadata } from "../../shared/validation.ts";

export function customerJson(c: Customer) {
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
