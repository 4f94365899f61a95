import { type Route, defineRoute } from "../../rest/router.ts";
import { listPageJsonSchema, pageOfQuery } from "../../shared/pagination.ts";
import { createCustomerSchema, listCustomersSchema, updateCustomerSchema } from "./customers.inputs.ts";
import { createCustomer, getCustomer, updateCustomer } from "./customers.service.ts";
import { listCustomers } from "./customers.store.ts";
import { customerJson, customerJsonSchema } from "./customers.view.ts";

export const customerRoutes: Route[] = [
  defineRoute({
    method: "POST",
    path: "/customers",
    operationId: "createCustomer",
    summary: "Create a customer",
    body: createCustomerSchema,
    status: 201,
    response: customerJsonSchema,
    async handler({ ctx, body }) {
      return customerJson(await createCustomer(ctx, body));
    },
  }),
  defineRoute({
    method: "GET",
    path: "/customers",
    operationId: "listCustomers",
    summary: "List customers, newest first",
    query: listCustomersSchema,
    response: listPageJsonSchema("customers", customerJsonSchema),
    async handler({ ctx, query }) {
      const page = await listCustomers(ctx, {}, pageOfQuery(query));
      return { customers: page.items.map(customerJson), has_more: page.hasMore };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/customers/:id",
    operationId: "getCustomer",
    summary: "Get a customer",
    response: customerJsonSchema,
    async handler({ ctx, params }) {
      return customerJson(await getCustomer(ctx, params.id));
    },
  }),
  defineRoute({
    method: "POST",
    path: "/customers/:id",
    operationId: "updateCustomer",
    summary: "Update a customer: the fields given change, null clears one",
    body: updateCustomerSchema,
    response: customerJsonSchema,
    async handler({ ctx, params, body }) {
      return customerJson(await updateCustomer(ctx, params.id, body));
    },
  }),
];
