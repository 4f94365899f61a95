// Payments: the list (status, customer, creation date range and a search as Stripe's: words of the
// id, description, metadata, hash, amount, customer;
// cursor paging; CSV export of what is shown and the pages after it) with live updates, and one
// payment's detail with its timeline of events, ledger transaction, webhook deliveries, its refunds,
// "Mark as completed" with a reason, and Refund / "Refund the excess" (prefilled) while money that
// arrived may still go back.
import type { Client } from "@urql/core";
import { useClient, useMutation, useQuery } from "@urql/preact";
import { useState } from "preact/hooks";
import { Link } from "wouter-preact";
import { Button, Field, ListFilters, Money, Notice, Page, Pager, Select, Status, Table, When } from "../../components/ui.tsx";
import { CustomerLink, type PickedCustomer } from "../components/customer-picker.tsx";
import { NewPayment } from "../components/new-payment.tsx";
import { RefundForm } from "../components/refund-form.tsx";
import { saveFile } from "../download.ts";
import { SearchField } from "../components/search-field.tsx";
import { usePaymentEvents } from "../payment-events.ts";
import { usePaging, useUrlFilters } from "../url-filters.ts";
import { errorText, graphql, type ResultOf } from "../graphql.ts";
import { fromStroops, refundInFlight, toStroops } from "../money.ts";
import { REFUND_ROW, RefundsTable } from "./refunds.tsx";
import { can, useSession } from "../session.tsx";

export const PAYMENT_ROW = graphql(`
  fragment PaymentRow on Payment @_unmask {
    id status amount createdAt confirmedAt customerId description txHash late
    customer { id name email }
    settlementAsset { assetCode issuerAddress }
    paidAsset { assetCode issuerAddress }
  }
`);

const PAYMENTS = graphql(
  `
  query Payments(
    $first: Int, $after: String, $last: Int, $before: String, $status: PaymentStatus, $customerId: String,
    $createdFrom: DateTime, $createdTo: DateTime, $search: String
  ) {
    payments(
      first: $first, after: $after, last: $last, before: $before, status: $status, customerId: $customerId,
      createdFrom: $createdFrom, createdTo: $createdTo, search: $search
    ) {
      edges { node { ...PaymentRow } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }
`,
  [PAYMENT_ROW],
);

type Row = ResultOf<typeof PAYMENT_ROW>;

const STATUSES: [string, string][] = [
  ["", "Any status"],
  ["pending", "Pending"],
  ["completed", "Completed"],
  ["failed", "Failed"],
  ["expired", "Expired"],
];

type Filters = {
  status: Row["status"] | null;
  customerId: string | null;
  createdFrom: string | null;
  createdTo: string | null;
  search: string | null;
};

/** The start of a date picked in the browser (yyyy-mm-dd, the viewer's own day) as an instant; `days` later. */
const startOfDay = (date: string, days = 0) => {
  if (!date) return null;
  const start = new Date(`${date}T00:00:00`);
  start.setDate(start.getDate() + days);
  return start.toISOString();
};

export function Payments() {
  const [{ status, customerId, from, to, search }, setFilter] = useUrlFilters(["status", "customerId", "from", "to", "search"]);
  const paging = usePaging();
  const client = useClient();
  const filters: Filters = {
    status: (status || null) as Row["status"] | null,
    customerId: customerId.trim() || null,
    createdFrom: startOfDay(from),
    // "to" includes its whole day: the list's upper bound is the next day's start
    createdTo: startOfDay(to, 1),
    search: search.trim() || null,
  };
  const [result, refetch] = useQuery({ query: PAYMENTS, variables: { ...paging.variables, ...filters } });
  // A new or changed payment refreshes the page shown (its position in the list may be new).
  usePaymentEvents(() => refetch({ requestPolicy: "network-only" }));
  const rows = result.data?.payments.edges.map((e) => e.node) ?? [];
  const session = useSession();
  const [creating, setCreating] = useState(false);
  return (
    <Page
      title="Payments"
      actions={
        <>
          {can.write(session.viewer.user.role) && !creating && (
            <Button variant="primary" onClick={() => setCreating(true)}>
              New payment
            </Button>
          )}
          <Button onClick={() => void exportCsv(client, filters)}>Export CSV</Button>
        </>
      }
    >
      {creating && <NewPayment onClose={() => setCreating(false)} />}
      <ListFilters active={[status, customerId, from, to, search].filter(Boolean).length}>
        <Select label="Status" value={status} options={STATUSES} onChange={(v) => setFilter("status", v)} />
        <Field label="Customer id" value={customerId} placeholder="cus_…" onInput={(e) => setFilter("customerId", e.currentTarget.value, "type")} />
        <Field label="Created from" type="date" value={from} max={to || undefined} onInput={(e) => setFilter("from", e.currentTarget.value)} />
        <Field label="Created to" type="date" value={to} min={from || undefined} onInput={(e) => setFilter("to", e.currentTarget.value)} />
        <SearchField
          value={search}
          placeholder="Description, customer, amount, id…"
          hint="Finds the start of an id, a description word, a metadata value or a transaction hash (3 characters or more; shorter words match whole words), an amount (12.5), or a customer's name or email. Several words: all must match."
          onSearch={(text, how) => setFilter("search", text, how)}
        />
      </ListFilters>
      <Notice>{errorText(result.error)}</Notice>
      <PaymentsTable caption="Payments" payments={rows} empty="No payments match." withCustomer />
      <Pager pageInfo={result.data?.payments.pageInfo} onPage={paging.setCursor} />
    </Page>
  );
}

/** Payments as every screen lists them: the full id (a link to its detail), the status in words, amount, when, and the customer if asked. */
export function PaymentsTable(props: {
  caption: string;
  payments: {
    id: string;
    status: string;
    amount: string;
    settlementAsset: { assetCode: string } | null;
    createdAt: string;
    customer?: PickedCustomer | null;
  }[];
  empty: string;
  withCustomer?: boolean;
}) {
  const head = ["Payment", "Status", "Amount", "Created", ...(props.withCustomer ? ["Customer"] : [])];
  return (
    <Table caption={props.caption} head={head} rows={props.payments.length} empty={props.empty}>
      {props.payments.map((p) => (
        <tr key={p.id}>
          <td>
            <Link href={`/payments/${p.id}`}>
              <code>{p.id}</code>
            </Link>
          </td>
          <td>
            <Status value={p.status} />
          </td>
          <td>
            <Money amount={p.amount} asset={p.settlementAsset} />
          </td>
          <td>
            <When at={p.createdAt} />
          </td>
          {props.withCustomer && <td>{p.customer ? <CustomerLink customer={p.customer} /> : <span class="muted">—</span>}</td>}
        </tr>
      ))}
    </Table>
  );
}

const csvCell = (value: unknown) => {
  const text = value == null ? "" : String(value);
  // Quoted, and a leading formula character defused, so a spreadsheet shows it as text.
  return `"${(/^[=+\-@\t\r]/.test(text) ? `'${text}` : text).replace(/"/g, '""')}"`;
};

/** Downloads every payment matching the filters, page by page, as CSV. */
async function exportCsv(client: Client, filters: Filters) {
  const lines = [["id", "status", "amount", "asset", "created_at", "confirmed_at", "customer_id", "tx_hash", "description"].join(",")];
  let after: string | undefined;
  for (;;) {
    const page = await client.query(PAYMENTS, { first: 100, after, ...filters }, { requestPolicy: "network-only" }).toPromise();
    if (!page.data) throw new Error(errorText(page.error) ?? "export failed");
    for (const { node: p } of page.data.payments.edges) {
      lines.push(
        [p.id, p.status, p.amount, p.settlementAsset.assetCode, p.createdAt, p.confirmedAt, p.customerId, p.txHash, p.description].map(csvCell).join(","),
      );
    }
    if (!page.data.payments.pageInfo.hasNextPage) break;
    after = page.data.payments.pageInfo.endCursor ?? undefined;
  }
  saveFile("payments.csv", `${lines.join("\r\n")}\r\n`, "text/csv");
}

const PAYMENT = graphql(
  `
  query Payment($id: ID!) {
    payment(id: $id) {
      ...PaymentRow
      amountReceived amountRefunded payerAddress failureReason manualCompletionReason expiresAt metadata sourceType
      paymentInstructions { destination memo memoType }
      events { id type createdAt }
      webhookDeliveries { id event status endpointId endpoint { url } }
      refunds(first: 50) { edges { node { ...RefundRow } } }
    }
  }
`,
  [PAYMENT_ROW, REFUND_ROW],
);

const MARK_COMPLETED = graphql(`
  mutation MarkCompleted($id: ID!, $reason: String!, $txHash: String) {
    markPaymentCompleted(id: $id, reason: $reason, txHash: $txHash) { id status confirmedAt manualCompletionReason }
  }
`);

export function PaymentDetail(props: { params: { id: string } }) {
  const session = useSession();
  const [result, refetch] = useQuery({ query: PAYMENT, variables: { id: props.params.id } });
  usePaymentEvents((payment) => payment.id === props.params.id && refetch({ requestPolicy: "network-only" }));
  const [marking, mark] = useMutation(MARK_COMPLETED);
  const [reason, setReason] = useState("");
  const [txHash, setTxHash] = useState("");
  const [refunding, setRefunding] = useState<"all" | "excess" | null>(null);
  const p = result.data?.payment;
  if (!p) return <Page title="Payment">{result.error ? <Notice>{errorText(result.error)}</Notice> : <p>Loading…</p>}</Page>;
  const sandbox = session.environment === "sandbox";
  const refunds = p.refunds.edges.map((e) => e.node);
  // What may still go back, as the server counts it: received, less refunded, less refunds on their way.
  const held = refunds.filter((r) => refundInFlight(r.status)).reduce((sum, r) => sum + toStroops(r.amount), 0n);
  const left = toStroops(p.amountReceived) - toStroops(p.amountRefunded) - held;
  const refundable = left > 0n ? left : 0n;
  // An overpayment's excess, as far as it is still refundable.
  const over = toStroops(p.amountReceived) - toStroops(p.amount);
  const excess = over <= 0n ? 0n : over < refundable ? over : refundable;
  return (
    <Page title={`Payment ${p.id}`}>
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <Status value={p.status} />
          {p.late && " (paid after it expired)"}
        </dd>
        <dt>Amount</dt>
        <dd>
          <Money amount={p.amount} asset={p.settlementAsset} />
        </dd>
        <dt>Received</dt>
        <dd>
          <Money amount={p.amountReceived} asset={p.paidAsset ?? p.settlementAsset} />
        </dd>
        <dt>Refunded</dt>
        <dd>
          <Money amount={p.amountRefunded} asset={p.settlementAsset} />
        </dd>
        <dt>Created</dt>
        <dd>
          <When at={p.createdAt} />
        </dd>
        <dt>Completed</dt>
        <dd>
          <When at={p.confirmedAt} />
        </dd>
        <dt>Expires</dt>
        <dd>
          <When at={p.expiresAt} />
        </dd>
        <dt>Customer</dt>
        <dd>{p.customer ? <CustomerLink customer={p.customer} /> : "—"}</dd>
        <dt>Description</dt>
        <dd>{p.description ?? "—"}</dd>
        <dt>Ledger transaction</dt>
        <dd>
          {p.txHash ? (
            <a href={`https://stellar.expert/explorer/${sandbox ? "testnet" : "public"}/tx/${p.txHash}`} target="_blank" rel="noreferrer">
              <code>{p.txHash}</code>
            </a>
          ) : (
            "—"
          )}
        </dd>
        <dt>Payer</dt>
        <dd>{p.payerAddress ? <code>{p.payerAddress}</code> : "—"}</dd>
        <dt>Memo</dt>
        <dd>
          <code>{p.paymentInstructions.memo}</code> ({p.paymentInstructions.memoType})
        </dd>
        {p.failureReason && (
          <>
            <dt>Failure</dt>
            <dd>{p.failureReason}</dd>
          </>
        )}
        {p.manualCompletionReason && (
          <>
            <dt>Marked completed because</dt>
            <dd>{p.manualCompletionReason}</dd>
          </>
        )}
      </dl>
      {can.write(session.viewer.user.role) && refundable > 0n && !refunding && (
        <div class="actions refund-actions">
          <Button variant="primary" onClick={() => setRefunding("all")}>
            Refund
          </Button>
          {excess > 0n && <Button onClick={() => setRefunding("excess")}>Refund the excess</Button>}
        </div>
      )}
      {refunding && (
        <RefundForm
          of={{ paymentId: p.id }}
          title={refunding === "excess" ? "Refund the excess" : "Refund"}
          amount={fromStroops(refunding === "excess" ? excess : refundable)}
          assetCode={p.settlementAsset.assetCode}
          reason={refunding === "excess" ? "Overpayment: the excess over the amount due" : ""}
          onCancel={() => setRefunding(null)}
        />
      )}
      <h2>Refunds</h2>
      <RefundsTable caption="Refunds" refunds={refunds} empty="No refunds." />
      <h2>Timeline</h2>
      <Table caption="Timeline" head={["Event", "Time"]} rows={p.events.length} empty="No events yet.">
        {p.events.map((event) => (
          <tr key={event.id}>
            <td>
              <code>{event.type}</code>
            </td>
            <td>
              <When at={event.createdAt} />
            </td>
          </tr>
        ))}
      </Table>
      <h2>Webhook deliveries</h2>
      <Table
        caption="Webhook deliveries"
        head={["Event", "Status", "Endpoint"]}
        rows={p.webhookDeliveries.length}
        empty="No webhook deliveries: no endpoint listens to this payment's events."
      >
        {p.webhookDeliveries.map((delivery) => (
          <tr key={delivery.id}>
            <td>
              <code>{delivery.event}</code>
            </td>
            <td>
              <Status value={delivery.status} />
            </td>
            <td>
              <Link href={`/developers/webhooks/${delivery.endpointId}`} aria-label={`Delivery log of ${delivery.endpoint.url}`}>
                {delivery.endpoint.url}
              </Link>
            </td>
          </tr>
        ))}
      </Table>
      {p.status === "pending" && can.write(session.viewer.user.role) && (
        <form
          class="panel"
          onSubmit={async (e) => {
            e.preventDefault();
            await mark({ id: p.id, reason: reason.trim(), txHash: txHash.trim() || null });
          }}
        >
          <h2>Mark as completed</h2>
          <p class="muted">For a payment you verified yourself, outside the ledger watch. It sends payment.completed.</p>
          <Field label="Reason" required maxLength={500} value={reason} hint="Kept on the payment." onInput={(e) => setReason(e.currentTarget.value)} />
          <Field label="Transaction hash (optional)" value={txHash} onInput={(e) => setTxHash(e.currentTarget.value)} />
          <Notice>{errorText(marking.error)}</Notice>
          <Button type="submit" variant="primary" disabled={marking.fetching}>
            Mark as completed
          </Button>
        </form>
      )}
    </Page>
  );
}
