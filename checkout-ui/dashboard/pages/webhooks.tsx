// Developers → Webhooks: endpoints (secret shown once at creation and rotation, a masked preview
// after), Send test event, enable/disable, the events each takes, and per endpoint the delivery log
// with the request payload, response, attempts, next retry, last error, Retry now on one that has not
// succeeded and Resend on one that has. The log is live (webhookDeliveryChanges).
import { useMutation, useQuery, useSubscription } from "@urql/preact";
import { useId, useState } from "preact/hooks";
import { Link } from "wouter-preact";
import { Button, DeliveryStatus, Field, FieldError, ListFilters, Notice, Page, Pager, SecretOnce, Select, Status, Table, When } from "../../components/ui.tsx";
import { EVENT_KINDS } from "../../../src/modules/events/event-kinds.ts";
import { untilInWords } from "../../../src/shared/wait-words.ts";
import { errorText, formErrors, graphql } from "../graphql.ts";
import { usePaging } from "../url-filters.ts";
import { can, useSession } from "../session.tsx";

/** The event kinds an endpoint can choose, from the server's own list ("*" takes every one; the test event goes to any endpoint). */
const EVENT_TYPES = EVENT_KINDS.filter((kind) => kind !== "webhook.test");

const ENDPOINTS = graphql(`
  query WebhookEndpoints($first: Int, $after: String, $last: Int, $before: String) {
    webhookEndpoints(first: $first, after: $after, last: $last, before: $before) {
      edges { node { id url description enabled enabledEvents secret createdAt } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }
`);
const CREATE = graphql(`
  mutation CreateWebhookEndpoint($input: CreateWebhookEndpointInput!) {
    createWebhookEndpoint(input: $input) { secret webhookEndpoint { id } }
  }
`);

export function Webhooks() {
  const session = useSession();
  const paging = usePaging();
  const [result] = useQuery({ query: ENDPOINTS, variables: paging.variables });
  const [adding, setAdding] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const rows = result.data?.webhookEndpoints.edges.map((e) => e.node) ?? [];
  const mayEdit = can.develop(session.viewer.user.role);
  return (
    <Page title="Webhooks" actions={mayEdit && !adding && <Button onClick={() => setAdding(true)}>Add endpoint</Button>}>
      {secret && <SecretOnce label="Signing secret" value={secret} onDone={() => setSecret(null)} />}
      {adding && (
        <EndpointForm
          onDone={(created) => {
            setAdding(false);
            if (created) setSecret(created);
          }}
        />
      )}
      <Notice>{errorText(result.error)}</Notice>
      <Table caption="Webhook endpoints" head={["Endpoint", "Events", "Status", "Secret", "Created"]} rows={rows.length} empty="No endpoints yet.">
        {rows.map((endpoint) => (
          <tr key={endpoint.id}>
            <td>
              <Link href={`/developers/webhooks/${endpoint.id}`}>{endpoint.url}</Link>
              {endpoint.description && <div class="muted">{endpoint.description}</div>}
            </td>
            <td>{eventsInWords(endpoint.enabledEvents)}</td>
            <td>
              <Status value={endpoint.enabled ? "active" : "inactive"} />
            </td>
            <td>
              <code>{endpoint.secret}</code>
            </td>
            <td>
              <When at={endpoint.createdAt} />
            </td>
          </tr>
        ))}
      </Table>
      <Pager pageInfo={result.data?.webhookEndpoints.pageInfo} onPage={paging.setCursor} />
    </Page>
  );
}

/** An endpoint's events as the merchant chose them: "*" is the "Every event" box. */
const eventsInWords = (events: string[]) => (events.includes("*") ? "Every event" : events.join(", "));

/** The events an endpoint takes; the server's refusal (none chosen) is said under the group and read with it. */
function EventChoice(props: { value: string[]; onChange: (events: string[]) => void; error: string | null }) {
  const all = props.value.includes("*");
  const toggle = (event: string, on: boolean) => props.onChange(on ? [...props.value.filter((e) => e !== event), event] : props.value.filter((e) => e !== event));
  const id = useId();
  return (
    <fieldset class={`events${props.error ? " invalid" : ""}`} aria-describedby={props.error ? `${id}-error` : undefined}>
      <legend>Events to send</legend>
      <label>
        <input type="checkbox" checked={all} onChange={(e) => props.onChange(e.currentTarget.checked ? ["*"] : [])} /> Every event
      </label>
      {!all &&
        EVENT_TYPES.map((event) => (
          <label key={event}>
            <input type="checkbox" checked={props.value.includes(event)} onChange={(e) => toggle(event, e.currentTarget.checked)} /> {event}
          </label>
        ))}
      <FieldError id={id} error={props.error} />
    </fieldset>
  );
}

function EndpointForm(props: { onDone: (secret: string | null) => void }) {
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [events, setEvents] = useState<string[]>(["*"]);
  const [result, create] = useMutation(CREATE);
  const errors = formErrors(result.error, ["url", "description", "enabledEvents"]);
  return (
    <form
      class="panel"
      onSubmit={async (e) => {
        e.preventDefault();
        const answer = await create({ input: { url, description: description || null, enabledEvents: events } });
        if (answer.data) props.onDone(answer.data.createWebhookEndpoint.secret);
      }}
    >
      <h2>Add an endpoint</h2>
      <Field label="Endpoint URL" type="url" required placeholder="https://example.com/webhooks" value={url} error={errors.of("url")} onInput={(e) => setUrl(e.currentTarget.value)} />
      <Field label="Description" value={description} error={errors.of("description")} onInput={(e) => setDescription(e.currentTarget.value)} />
      <EventChoice value={events} onChange={setEvents} error={errors.of("enabledEvents")} />
      <Notice>{errors.other}</Notice>
      <div class="actions">
        <Button type="submit" variant="primary" disabled={result.fetching}>
          Add endpoint
        </Button>
        <Button onClick={() => props.onDone(null)}>Cancel</Button>
      </div>
    </form>
  );
}

const ENDPOINT = graphql(`
  query WebhookEndpoint($id: ID!, $endpointId: String!, $first: Int, $after: String, $last: Int, $before: String, $status: WebhookDeliveryStatus) {
    webhookEndpoint(id: $id) { id url description enabled enabledEvents secret createdAt previousSecretExpiresAt }
    webhookDeliveries(endpointId: $endpointId, status: $status, first: $first, after: $after, last: $last, before: $before) {
      edges {
        node {
          id event eventId status attemptCount nextRetryAt lastError responseCode responseBody requestPayload createdAt
          attempts { number startedAt durationMs responseCode error manual }
        }
      }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }
`);
const ROTATE = graphql(`mutation RotateSecret($id: ID!) { rotateWebhookEndpointSecret(id: $id) { secret webhookEndpoint { id secret previousSecretExpiresAt } } }`);
const SEND_TEST = graphql(`mutation SendTestEvent($id: ID!) { sendTestWebhook(endpointId: $id) { id status } }`);
const UPDATE = graphql(`
  mutation UpdateWebhookEndpoint($id: ID!, $input: UpdateWebhookEndpointInput!) {
    updateWebhookEndpoint(id: $id, input: $input) { id enabled enabledEvents }
  }
`);
const RETRY = graphql(`mutation RetryDelivery($id: ID!) { retryWebhookDelivery(id: $id) { id status nextRetryAt } }`);
// Each change of this endpoint's deliveries (an attempt recorded, here or by the worker) reloads the log.
const DELIVERY_CHANGES = graphql(`subscription EndpointDeliveryChanges($endpointId: ID) { webhookDeliveryChanges(endpointId: $endpointId) { id status attemptCount } }`);

const DELIVERY_STATUSES: [string, string][] = [
  ["", "Any status"],
  ["pending", "Pending"],
  ["succeeded", "Succeeded"],
  ["failed", "Failed"],
];

export function WebhookEndpointDetail(props: { params: { id: string } }) {
  const session = useSession();
  const paging = usePaging();
  const [status, setStatus] = useState("");
  const [result, refetch] = useQuery({
    query: ENDPOINT,
    variables: { id: props.params.id, endpointId: props.params.id, ...paging.variables, status: (status || null) as "failed" | null },
  });
  const [secret, setSecret] = useState<string | null>(null);
  const [events, setEvents] = useState<string[] | null>(null);
  const [rotation, rotate] = useMutation(ROTATE);
  const [test, sendTest] = useMutation(SEND_TEST);
  const [update, save] = useMutation(UPDATE);
  const eventErrors = formErrors(update.error, ["enabledEvents"]);
  const [retry, retryDelivery] = useMutation(RETRY);
  useSubscription({ query: DELIVERY_CHANGES, variables: { endpointId: props.params.id } }, () => refetch({ requestPolicy: "network-only" }));
  const endpoint = result.data?.webhookEndpoint;
  if (!endpoint) return <Page title="Webhook endpoint">{result.error ? <Notice>{errorText(result.error)}</Notice> : <p>Loading…</p>}</Page>;
  const mayEdit = can.develop(session.viewer.user.role);
  const deliveries = result.data?.webhookDeliveries.edges.map((e) => e.node) ?? [];
  return (
    <Page
      title={endpoint.url}
      actions={
        mayEdit && (
          <>
            <Button onClick={() => void sendTest({ id: endpoint.id })} disabled={test.fetching}>
              Send test event
            </Button>
            <Button
              onClick={async () => {
                const answer = await rotate({ id: endpoint.id });
                if (answer.data) setSecret(answer.data.rotateWebhookEndpointSecret.secret);
              }}
              disabled={rotation.fetching}
            >
              Rotate secret
            </Button>
            <Button onClick={() => void save({ id: endpoint.id, input: { enabled: !endpoint.enabled } })}>
              {endpoint.enabled ? "Disable" : "Enable"}
            </Button>
          </>
        )
      }
    >
      <Notice>{errorText(test.error ?? rotation.error ?? retry.error) ?? eventErrors.other}</Notice>
      {test.data && <Notice kind="ok">Test event sent: the log below shows its outcome.</Notice>}
      {secret && <SecretOnce label="New signing secret" value={secret} onDone={() => setSecret(null)} />}
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <Status value={endpoint.enabled ? "active" : "inactive"} />
        </dd>
        <dt>Secret</dt>
        <dd>
          <code>{endpoint.secret}</code>
          {endpoint.previousSecretExpiresAt && (
            <span class="muted">
              {" "}
              (the previous secret also signs until <When at={endpoint.previousSecretExpiresAt} />)
            </span>
          )}
        </dd>
        <dt>Events</dt>
        <dd>{eventsInWords(endpoint.enabledEvents)}</dd>
      </dl>
      {mayEdit &&
        (events ? (
          <form
            class="panel"
            onSubmit={async (e) => {
              e.preventDefault();
              const answer = await save({ id: endpoint.id, input: { enabledEvents: events } });
              if (answer.data) setEvents(null);
            }}
          >
            <EventChoice value={events} onChange={setEvents} error={eventErrors.of("enabledEvents")} />
            <div class="actions">
              <Button type="submit" variant="primary" disabled={update.fetching}>
                Save events
              </Button>
              <Button onClick={() => setEvents(null)}>Cancel</Button>
            </div>
          </form>
        ) : (
          <Button onClick={() => setEvents(endpoint.enabledEvents)}>Edit events</Button>
        ))}
      <h2>Delivery log</h2>
      <ListFilters active={[status].filter(Boolean).length}>
        <Select label="Delivery status" value={status} options={DELIVERY_STATUSES} onChange={(v) => (setStatus(v), paging.reset())} />
      </ListFilters>
      <ul class="deliveries">
        {deliveries.length === 0 && <li class="muted">No deliveries yet.</li>}
        {deliveries.map((d) => (
          <li key={d.id} class="delivery">
            <details>
              <summary>
                <code>{d.event}</code> <DeliveryStatus status={d.status} attemptCount={d.attemptCount} /> {d.responseCode ?? "no response"} · <When at={d.createdAt} /> · {d.attemptCount}{" "}
                {d.attemptCount === 1 ? "attempt" : "attempts"}
              </summary>
              <dl class="facts">
                <dt>Delivery</dt>
                <dd>
                  <code>{d.id}</code>
                </dd>
                <dt>Next retry</dt>
                <dd>
                  {d.nextRetryAt ? (
                    <>
                      {untilInWords(new Date(d.nextRetryAt), new Date())} (<When at={d.nextRetryAt} />)
                    </>
                  ) : (
                    <When at={null} />
                  )}
                </dd>
                <dt>Last error</dt>
                <dd>{d.lastError ?? "—"}</dd>
                <dt>Response body</dt>
                <dd>
                  <pre>{d.responseBody ?? "—"}</pre>
                </dd>
              </dl>
              <h3>Request payload</h3>
              <pre>{prettyJson(d.requestPayload)}</pre>
              <h3>Attempts</h3>
              <ol>
                {d.attempts.map((a) => (
                  <li key={a.number}>
                    <When at={a.startedAt} />: {a.responseCode ?? "no response"} in {a.durationMs} ms{a.error ? `, ${a.error}` : ""}
                    {a.manual ? " (by hand)" : ""}
                  </li>
                ))}
              </ol>
            </details>
            {mayEdit && (
              <Button
                aria-label={`${d.status === "succeeded" ? "Resend" : "Retry now"} delivery ${d.id}`}
                onClick={() => void retryDelivery({ id: d.id })}
                disabled={retry.fetching}
              >
                {d.status === "succeeded" ? "Resend" : "Retry now"}
              </Button>
            )}
          </li>
        ))}
      </ul>
      <Pager pageInfo={result.data?.webhookDeliveries.pageInfo} onPage={paging.setCursor} />
    </Page>
  );
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
