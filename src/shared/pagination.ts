// Stripe-style lists shared by every resource: newest first, `limit` 1..100 (default 10),
// `starting_after` / `ending_before` naming an id of the same list, `has_more`.
import { z } from "zod";
import { badRequest } from "../errors.ts";

const baseListShape = {
  limit: z.coerce.number().int().min(1).max(100).default(10),
  starting_after: z.string().min(1).optional(),
  ending_before: z.string().min(1).optional(),
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

export interface Page<T> {
  items: T[];
  hasMore: boolean;
}

interface Row {
  id: string;
  createdAt: Date;
}

/** The minimal part of a Prisma model delegate that a list needs. */
interface Listable<T extends Row> {
  findMany(args: { where: object; orderBy: object[]; take: number }): Promise<T[]>;
  findFirst(args: { where: object; select: { id: true; createdAt: true } }): Promise<Row | null>;
}

/**
 * One page of `where`, newest first, ordered by (createdAt, id) so that rows created in the same
 * millisecond still have a stable place.
 */
export async function listPage<T extends Row>(model: Listable<T>, where: object, query: ListQuery): Promise<Page<T>> {
  const cursorId = query.starting_after ?? query.ending_before;
  const forward = !query.ending_before;
  let position: object = {};
  if (cursorId) {
    const cursor = await model.findFirst({ where: { ...where, id: cursorId }, select: { id: true, createdAt: true } });
    if (!cursor) throw badRequest(`${forward ? "starting_after" : "ending_before"} names no object of this list`);
    const op = forward ? "lt" : "gt";
    position = {
      OR: [{ createdAt: { [op]: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { [op]: cursor.id } }],
    };
  }
  const direction = forward ? "desc" : "asc";
  const rows = await model.findMany({
    where: { AND: [where, position] },
    orderBy: [{ createdAt: direction }, { id: direction }],
    take: query.limit + 1,
  });
  const hasMore = rows.length > query.limit;
  const items = rows.slice(0, query.limit);
  return { items: forward ? items : items.reverse(), hasMore };
}
