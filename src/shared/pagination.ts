// Stripe-style lists shared by every resource: newest first, `limit` 1..100 (default 10),
// `starting_after` / `ending_before` naming an id of the same list, `has_more`. The page itself is
// read by src/db/list-page.ts, as GraphQL's connections are.
import { z } from "zod";
import type { PageRequest } from "../db/list-page.ts";
import { idInputSchema } from "./validation.ts";

const baseListShape = {
  limit: z.coerce.number().int().min(1).max(100).default(10).meta({ format: "int32" }),
  starting_after: idInputSchema.min(1).optional().meta({ description: "the id of an object of this list: the page starts after it (not with ending_before)" }),
  ending_before: idInputSchema.min(1).optional().meta({ description: "the id of an object of this list: the page ends before it (not with starting_after)" }),
};

/** A list's query parameters: the shared ones plus the resource's own filters. Unknown ones are ignored. */
export function listQuerySchema<S extends z.ZodRawShape>(filters: S) {
  return z
    .object({ ...baseListShape, ...filters })
    .refine((q) => !((q as ListQuery).starting_after && (q as ListQuery).ending_before), {
      message: "and ending_before are mutually exclusive",
      path: ["starting_after"],
    });
}

/** A list's answer: `{ "<plural>": [...], "has_more": boolean }`, named after its item ("PaymentList"). */
export function listPageJsonSchema<K extends string, T extends z.ZodType>(key: K, item: T) {
  const shape = { [key]: z.array(item), has_more: z.boolean() } as { [P in K]: z.ZodArray<T> } & { has_more: z.ZodBoolean };
  return z.object(shape).meta({ id: `${item.meta()?.id}List` });
}

export type ListQuery = { limit: number; starting_after?: string; ending_before?: string };

/** The page a list's query parameters ask for. */
export function pageOfQuery(query: ListQuery): PageRequest {
  return {
    limit: query.limit,
    after: query.starting_after ? { key: query.starting_after, argument: "starting_after" } : undefined,
    before: query.ending_before ? { key: query.ending_before, argument: "ending_before" } : undefined,
    fromBefore: query.ending_before !== undefined,
  };
}
