import type { Customer } from "../../generated/sqlite/client.ts";
import { type ServiceContext, inScope, isInScope } from "../../context.ts";
import { badRequest, notFound } from "../../errors.ts";
import { serializeMetadata } from "../../shared/validation.ts";
import type { CustomerInput } from "./customers.inputs.ts";
import { findCustomer, insertCustomer, updateCustomerRow } from "./customers.store.ts";

/**
 * A customer is someone the merchant can tell apart and reach: a blank one (a form sent empty) is
 * refused, on create and on an update that would clear both.
 */
function requireNameOrEmail(customer: { name?: string | null; email?: string | null }): void {
  if (!customer.name?.trim() && !customer.email?.trim()) {
    throw badRequest("name or email is required", { path: ["name"], problem: "or email is required", words: "Name or email: give the customer at least one" });
  }
}

export async function createCustomer(ctx: ServiceContext, input: CustomerInput): Promise<Customer> {
  requireNameOrEmail(input);
  const now = ctx.clock.now();
  const customer: Customer = {
    id: ctx.ids.newId("cus"),
    ...inScope(ctx.scope),
    email: input.email ?? null,
    name: input.name ?? null,
    description: input.description ?? null,
    metadata: serializeMetadata(input.metadata),
    createdAt: now,
    updatedAt: now,
  };
  await insertCustomer(ctx.db, customer);
  return customer;
}

/** The caller's customer `id`, or null when there is none in its organization and environment. */
export async function findCustomerInScope(ctx: ServiceContext, id: string): Promise<Customer | null> {
  const customer = await findCustomer(ctx.db, id);
  return customer && isInScope(customer, ctx.scope) ? customer : null;
}

export async function getCustomer(ctx: ServiceContext, id: string): Promise<Customer> {
  const customer = await findCustomerInScope(ctx, id);
  if (!customer) throw notFound();
  return customer;
}

export async function updateCustomer(ctx: ServiceContext, id: string, input: CustomerInput): Promise<Customer> {
  const current = await getCustomer(ctx, id);
  requireNameOrEmail({ name: input.name !== undefined ? input.name : current.name, email: input.email !== undefined ? input.email : current.email });
  const updated = await updateCustomerRow(ctx.db, id, {
    ...(input.email !== undefined && { email: input.email }),
    ...(input.name !== undefined && { name: input.name }),
    ...(input.description !== undefined && { description: input.description }),
    ...(input.metadata !== undefined && { metadata: serializeMetadata(input.metadata) }),
    updatedAt: ctx.clock.now(),
  });
  if (!updated) throw notFound();
  return updated;
}
