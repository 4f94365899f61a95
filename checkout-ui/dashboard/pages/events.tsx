// Developers → Events: every event of this environment with its deliveries (one per endpoint), by
// kind, and Resend of any event to an endpoint that subscribes to it. Live: deliveries that change
// (an attempt, a Retry now or Resend elsewhere) refresh the list.
import { useMutation, useQuery, useSubscription } from "@urql/preact";
import { useState } from "preact/hooks";
import { Link } from "wouter-preact";
import { Button, DeliveryStatus, ListFilters, Notice, Page, Pager, Select, When } from "../../components/ui.tsx";
import { EVENT_KINDS } from "../../../src/modules/events/event-kinds.ts";
import { errorText, graphql } from "../graphql.ts";
import { usePaging, useUrlFilters } from "../url-filters.ts";
import { can, useSession } from "../session.tsx";

const EVENTS = graphql(`
  query WebhookEvents($type: String, $first: Int, $after: String, $last: Int, $before: String) {
    webhookEvents(type: $type, first: $first, after: $after, last: $last, before: $before) {
      edges { node { id type resourceId createdAt deliveries { id endpointId status attemptCount responseCode endpoint { url } } } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
    webhookEndpoints(first: 100) { edges { node { id url enabled enabledEvents } } }
  }
`);
const RESEND = graphql(`mutation ResendEvent($eventId: ID!, $endpointId: ID!) { resendWebhookEvent(eventId: $eventId, endpointId: $endpointId) { id status } }`);
const DELIVERY_CHANGES = graphql(`subscription DeliveryChanges { webhookDeliveryChanges { id status attemptCount } }`);

const TYPES: [string, string][] = [["", "Every kind"], ...EVENT_KINDS.map((kind): [string, string] => [kind, kind])];

type Endpoint = { id: string; url: string; enabled: boolean; enabledEvents: string[] };

/** The endpoints an event can be resent to: those it was delivered to, and the live ones that take its kind. */
const resendTargets = (endpoints: Endpoint[], type: string, deliveredTo: string[]) =>
  endpoints.filter((e) => deliveredTo.includes(e.id) || (e.enabled && (e.enabledEvents.includes("*") || e.enabledEvents.includes(type))));

export function Events() {
  const session = useSession();
  const [{ type }, setFilter] = useUrlFilters(["type"]);
  const paging = usePaging();
  const [result, refetch] = useQuery({ query: EVENTS, variables: { type: type || null, ...paging.variables } });
  useSubscription({ query: DELIVERY_CHANGES }, () => refetch({ requestPolicy: "network-only" }));
  const events = result.data?.webhookEvents.edges.map((e) => e.node) ?? [];
  const endpoints = result.data?.webhookEndpoints.edges.map((e) => e.node) ?? [];
  const mayResend = can.develop(session.viewer.user.role);
  return (
    <Page title="Events">
      <Notice>{errorText(result.error)}</Notice>
      <ListFilters active={[type].filter(Boolean).length}>
        <Select label="Event kind" value={type} options={TYPES} onChange={(v) => setFilter("type", v)} />
      </ListFilters>
      <ul class="deliveries">
        {result.data && events.length === 0 && <li class="muted">No events yet.</li>}
        {events.map((event) => (
          <li key={event.id} class="delivery event-card">
            <div>
              <strong>
                <code>{event.type}</code>
              </strong>{" "}
              · <When at={event.createdAt} /> · <code>{event.id}</code>
            </div>
            <div class="muted">
              About <code>{event.resourceId}</code>
            </div>
            <ul>
              {event.deliveries.length === 0 && <li class="muted">Not delivered to any endpoint.</li>}
              {event.deliveries.map((d) => (
                <li key={d.id}>
                  <Link href={`/developers/webhooks/${d.endpointId}`}>{d.endpoint.url}</Link>{" "}
                  <DeliveryStatus status={d.status} attemptCount={d.attemptCount} /> {d.responseCode ?? "no response"} ·{" "}
                  {d.attemptCount} {d.attemptCount === 1 ? "attempt" : "attempts"}
                </li>
              ))}
            </ul>
            {mayResend && (
              <Resend
                eventId={event.id}
                targets={resendTargets(
                  endpoints,
                  event.type,
                  event.deliveries.map((d) => d.endpointId),
                )}
              />
            )}
          </li>
        ))}
      </ul>
      <Pager pageInfo={result.data?.webhookEvents.pageInfo} onPage={paging.setCursor} />
    </Page>
  );
}

function Resend(props: { eventId: string; targets: Endpoint[] }) {
  const [endpointId, setEndpointId] = useState("");
  const [resend, send] = useMutation(RESEND);
  if (props.targets.length === 0) return null;
  const chosen = endpointId || props.targets[0]!.id;
  return (
    <form
      class="filters"
      onSubmit={(e) => {
        e.preventDefault();
        void send({ eventId: props.eventId, endpointId: chosen });
      }}
    >
      <Select
        label={`Resend ${props.eventId} to`}
        value={chosen}
        options={props.targets.map((t): [string, string] => [t.id, t.url])}
        onChange={setEndpointId}
      />
      <Button type="submit" disabled={resend.fetching} aria-label={`Resend ${props.eventId}`}>
        Resend
      </Button>
      <Notice>{errorText(resend.error)}</Notice>
      {resend.data && <Notice kind="ok">Sent again: the delivery shows its outcome here.</Notice>}
    </form>
  );
}
