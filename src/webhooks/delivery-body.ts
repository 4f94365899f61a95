import type { Event } from "../generated/sqlite/client.ts";

/**
 * The body of every delivery of an event: {"id", "event", "created_at", "data"}. `data` is the
 * event's stored JSON as is, so the string is built once, stored, and re-sent byte for byte.
 */
export const deliveryBody = (event: Pick<Event, "id" | "type" | "createdAt" | "data">) =>
  `{"id":${JSON.stringify(event.id)},"event":${JSON.stringify(event.type)},"created_at":${JSON.stringify(event.createdAt.toISOString())},"data":${event.data}}`;
