import { type Route, created, ok } from "../../rest/router.ts";
import { parseInput } from "../../shared/validation.ts";
import { createCustomerSchema, listCustomersSchema, updateCustomerSchema } from "./customers.inputs.ts";
import { createCustomer, getCustomer, listCustomers, updateCustomer } from "./customers.service.ts";
import { customerJson } from "./customers.view.ts";

export const customerRoutes: Route[] = [
  {
    method: "POST",
    path: "/customers",
    async handler({ ctx, body }) {
      return created(customerJson(await createCustomer(ctx, parseInput(createCustomerSchema, body))));
    },
  },
  {
    method: "GET",
    path: "/customers",
    async handler({ ctx, query }) {
      const page = await listCustomers(ctx, parseInput(listCustomersSchema, query, "query"));
      return ok({ customers: page.items.map(customerJson), has_more: page.hasMore });
    },
  },
  {
    method: "GET",
    path: "/customers/:id",
    async handler({ ctx, params }) {
      return ok(customerJson(await getCustomer(ctx, params.id!)));
    },
  },
  {
    method: "POST",
    path: "/customers/:id",
    async handler({ ctx, params, body }) {
      return ok(customerJson(await updateCustomer(ctx, params.id!, parseInput(updateCustomerSchema, body))));
    },
  },
];
