// The WebhookEndpoint aggregate's reads and writes.
import { type ServiceContext, inScope } from "../../context.ts";
import { typedSql } from "../../db/client.ts";
import { type InScope, type PageRequest, listOf } from "../../db/list-page.ts";

/** Endpoints have no list filters (yet): the caller's are listed. */
export type WebhookEndpointFilters = Record<never, never>;

/** The endpoints a list shows: the caller's that are not deleted. */
const endpointsMatching = listOf<"WebhookEndpoint", InScope<WebhookEndpointFilters>>({
  table: "WebhookEndpoint",
  where: (eb, f) => eb.and({ ...inScope(f), deletedAt: null }),
});

export const listWebhookEndpoints = (ctx: ServiceContext, filters: WebhookEndpointFilters, page: PageRequest) =>
  endpointsMatching(typedSql(ctx.db), { ...inScope(ctx.scope), ...filters }, page);
