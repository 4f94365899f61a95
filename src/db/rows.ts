// Driver rows -> exactly the model types Prisma returns, one converter per model (direct-sql.ts's
// rowConverter), for every module that reads with prepared statements.
import type { Event, IdempotencyRecord, WebhookDelivery, WebhookEndpoint } from "../generated/sqlite/client.ts";
import { rowConverter } from "./direct-sql.ts";

export const toEvent = rowConverter<Event>("Event");
export const toIdempotencyRecord = rowConverter<IdempotencyRecord>("IdempotencyRecord");
export const toWebhookDelivery = rowConverter<WebhookDelivery>("WebhookDelivery");
export const toWebhookEndpoint = rowConverter<WebhookEndpoint>("WebhookEndpoint");
