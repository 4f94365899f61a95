import { builder } from "../../graphql/builder.ts";
import { requireService } from "../../graphql/context.ts";
import { idempotentCreate } from "../../graphql/idempotent-create.ts";
import { defined, NEWEST_FIRST } from "../../graphql/shared-types.ts";
import { inScope } from "../../context.ts";
import { deserializeMetadata, parseInput } from "../../shared/validation.ts";
import { createCustomerSchema, updateCustomerSchema } from "./customers.inputs.ts";
import { createCustomer, getCustomer, updateCustomer } from "./customers.service.ts";

builder.prismaObject("Customer", {
  fields: (t) => ({
    id: t.exposeID("id"),
    email: t.exposeString("email", { nullable: true }),
    name: t.exposeString("name", { nullable: true }),
    description: t.exposeString("description", { nullable: true }),
    metadata: t.field({ type: "Metadata", nullable: true, resolve: (c) => deserializeMetadata(c.metadata) }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    payments: t.relatedConnection("payments", {
      cursor: "id",
      query: { orderBy: NEWEST_FIRST },
    }),
  }),
});

builder.queryFields((t) => ({
  customer: t.prismaField({
    type: "Customer",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_query, _root, args, ctx) => getCustomer(requireService(ctx), String(args.id)),
  }),
  customers: t.prismaConnection({
    type: "Customer",
    cursor: "id",
    resolve: (query, _root, _args, ctx) => {
      const service = requireService(ctx);
      return service.db.customer.findMany({
        ...query,
        where: inScope(service.scope),
        orderBy: NEWEST_FIRST,
      });
    },
  }),
}));

const CustomerInput = builder.inputType("CustomerInput", {
  fields: (t) => ({
    email: t.string(),
    name: t.string(),
    description: t.string(),
    metadata: t.field({ type: "Metadata" }),
  }),
});

builder.mutationFields((t) => ({
  createCustomer: t.prismaField({
    type: "Customer",
    args: {
      input: t.arg({ type: CustomerInput, required: true }),
      idempotencyKey: t.arg.string({ description: "as REST's Idempotency-Key: a retry with the same key creates nothing new" }),
    },
    resolve: (_query, _root, { input, idempotencyKey }, ctx) => {
      const service = requireService(ctx);
      const body = defined({ ...input });
      return idempotentCreate(
        service,
        { key: idempotencyKey, mutation: "createCustomer", input: body },
        () => createCustomer(service, parseInput(createCustomerSchema, body, "input")),
        (id) => getCustomer(service, id),
      );
    },
  }),
  updateCustomer: t.prismaField({
    type: "Customer",
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: CustomerInput, required: true }) },
    resolve: (_query, _root, { id, input }, ctx) =>
      updateCustomer(requireService(ctx), String(id), parseInput(updateCustomerSchema, defined({ ...input }), "input")),
  }),
}));
