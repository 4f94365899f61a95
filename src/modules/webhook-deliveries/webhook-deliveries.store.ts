// The WebhookDelivery aggregate's reads and writes (with its attempts).
import { type ServiceContext, inScope } from "../../context.ts";
import type { WebhookAttempt, WebhookDelivery } from "../../generated/sqlite/client.ts";
import { typedSql } from "../../db/client.ts";
import { type InScope, type Page, type PageRequest, listOf } from "../../db/list-page.ts";
import { inListParam, preparedQuery } from "../../db/typed-sql.ts";
import type { DeliveryStatus } from "./webhook-deliveries.inputs.ts";

/** A delivery with its attempts in order, as the delivery log shows it. */
export type DeliveryWithAttempts = WebhookDelivery & { attempts: WebhookAttempt[] };

export interface WebhookDeliveryFilters {
  endpointId?: string | null;
  status?: DeliveryStatus | null;
  /** the event kind */
  event?: string | null;
}

/** The deliveries a list shows: the caller's, of the endpoint, status and event kind asked for (REST and GraphQL). */
const deliveriesMatching = listOf<"WebhookDelivery", InScope<WebhookDeliveryFilters>>({
  table: "WebhookDelivery",
  where: (eb, f) => eb.and({ ...inScope(f), endpointId: f.endpointId, status: f.status, eventType: f.event }),
});

/** These deliveries with what a GraphQL selection includes (a Prisma include), for the rows of a page. */
export const webhookDeliveriesIncluding = (ctx: Pick<ServiceContext, "db">, ids: string[], query: object): Promise<WebhookDelivery[]> =>
  ctx.db.webhookDelivery.findMany({ ...query, where: { id: { in: ids } } });

const attemptsOfDeliveries = preparedQuery((q, p: { ids: unknown }) =>
  q.selectFrom("WebhookAttempt").selectAll().where(inListParam(q, "deliveryId", p.ids)).orderBy("deliveryId").orderBy("number"),
);

/** A page of deliveries, each with its attempts in order (the delivery log). */
export async function listWebhookDeliveries(
  ctx: ServiceContext,
  filters: WebhookDeliveryFilters,
  page: PageRequest,
): Promise<Page<DeliveryWithAttempts>> {
  const sql = typedSql(ctx.db);
  const deliveries = await deliveriesMatching(sql, { ...inScope(ctx.scope), ...filters }, page);
  const ids = deliveries.items.map((d) => d.id);
  const attempts = ids.length ? await attemptsOfDeliveries.all(sql, { ids: sql.direct.listParam(ids) }) : [];
  return { ...deliveries, items: deliveries.items.map((d) => ({ ...d, attempts: attempts.filter((a) => a.deliveryId === d.id) })) };
}
