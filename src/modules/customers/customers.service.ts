import type { Customer } from "../../generated/sqlite/client.ts";
import { type ServiceContext, inScope, isInScope } from "../../context.ts";
import { notFound } from "../../errors.ts";
import { serializeMetadata } from "../../shared/validation.ts";
import type { CustomerInput } from "./customers.inputs.ts";

export async function createCustomer(ctx: ServiceContext, input: CustomerInput): Promise<Customer> {
  const now = ctx.clock.now();
  return ctx.db.customer.create({
    data: {
      id: ctx.ids.newId("cus"),
      ...inScope(ctx.scope),
      email: input.email ?? null,
      name: input.name ?? null,
      description: input.description ?? null,
      metadata: serializeMetadata(input.metadata),
      createdAt: now,
      updatedAt: now,
    },
  });
}

export async function getCustomer(ctx: ServiceContext, id: string): Promise<Customer> {
  // By id alone, scope checked here: concurrent findUniques are batched into one query.
  const customer = await ctx.db.customer.findUnique({ where: { id } });
  if (!customer || !isInScope(customer, ctx.scope)) throw notFound();
  return customer;
}

export async function updateCustomer(ctx: ServiceContext, id: string, input: CustomerInput): Promise<Customer> {
  await getCustomer(ctx, id);
  return ctx.db.customer.update({
    where: { id },
    data: {
      ...(input.email !== undefined && { email: input.email }),
      ...(input.name !== undefined && { name: input.name }),
      ...(input.description !== undefined && { description: input.description }),
      ...(input.metadata !== undefined && { metadata: serializeMetadata(input.metadata) }),
      updatedAt: ctx.clock.now(),
    },
  });
}
