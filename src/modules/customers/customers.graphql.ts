import { builder } from "../../graphql/builder.ts";
import { requireService } from "../../graphql/context.ts";
import { idempotentCreate } from "../../graphql/idempotent-create.ts";
import { listConnection } from "../../graphql/connection.ts";
import { defined } from "../../graphql/shared-types.ts";
import { deserializeMetadata, parseInput } from "../../shared/validation.ts";
import { createCustomerSchema, updateCustomerSchema } from "./customers.inputs.ts";
import { PaymentType, paymentConnection } from "../payments/payments.graphql.ts";
import { createCustomer, getCustomer, updateCustomer } from "./customers.service.ts";
import { listCustomers } from "./customers.store.ts";

const CustomerType = builder.prismaObject("Customer", {
  fields: (t) => ({
    id: t.exposeID("id"),
    email: t.exposeString("email", { nullable: true }),
    name: t.exposeString("name", { nullable: true }),
    description: t.exposeString("description", { nullable: true }),
    metadata: t.field({ type: "Metadata", nullable: true, resolve: (c) => deserializeMetadata(c.metadata) }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    payments: t.connection({
      type: PaymentType,
      resolve: (customer, args, ctx, info) => paymentConnection(ctx, info, args, { customerId: customer.id }),
    }),
  }),
});

builder.queryFields((t) => ({
  customer: t.prismaField({
    type: "Customer",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_query, _root, args, ctx) => getCustomer(requireService(ctx), String(args.id)),
  }),
  customers: t.connection({
    type: CustomerType,
    args: { search: t.arg.string({ description: "part of the name or the email, in any case" }) },
    resolve: (_root, args, ctx) => listConnection(args, (page) => listCustomers(requireService(ctx), { search: args.search }, page), (c) => c.id),
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
