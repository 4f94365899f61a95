// Invoices: the list, a draft with items (its customer picked by name or email, each line's total
// and the subtotal as they are typed), and one invoice with Finalize, Void, Send invoice and its links
// to copy.
import { useMutation, useQuery, useSubscription } from "@urql/preact";
import { useState } from "preact/hooks";
import { Link, useLocation } from "wouter-preact";
import { Button, CopyButton, Field, ListFilters, Money, Notice, Page, Pager, Select, Status, Table, When } from "../../components/ui.tsx";
import { CustomerLink, CustomerPicker, type PickedCustomer } from "../components/customer-picker.tsx";
import { errorText, formErrors, graphql } from "../graphql.ts";
import { fromStroops, toStroops } from "../money.ts";
import { SearchField } from "../components/search-field.tsx";
import { usePaging, useUrlFilters } from "../url-filters.ts";
import { usePaymentEvents } from "../payment-events.ts";
import { can, useSession } from "../session.tsx";

const INVOICES = graphql(`
  query Invoices($first: Int, $after: String, $last: Int, $before: String, $status: InvoiceStatus, $customerId: String, $search: String) {
    invoices(first: $first, after: $after, last: $last, before: $before, status: $status, customerId: $customerId, search: $search) {
      edges { node { id invoiceNumber status amount dueAt customerId createdAt paymentIntentId settlementAsset { assetCode issuerAddress } customer { id name email } } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }
`);

const STATUSES: [string, string][] = [
  ["", "Any status"],
  ["draft", "Draft"],
  ["open", "Open"],
  ["paid", "Paid"],
  ["void", "Void"],
];

export function Invoices() {
  const session = useSession();
  const [{ status, search }, setFilter] = useUrlFilters(["status", "search"]);
  const paging = usePaging();
  const [creating, setCreating] = useState(false);
  const [result, refetch] = useQuery({
    query: INVOICES,
    variables: { ...paging.variables, status: (status || null) as "open" | null, search: search.trim() || null },
  });
  const rows = result.data?.invoices.edges.map((e) => e.node) ?? [];
  // An invoice shown turns paid as its payment completes: read the page again when one of theirs moves.
  usePaymentEvents((payment) => rows.some((row) => row.paymentIntentId === payment.id) && refetch({ requestPolicy: "network-only" }));
  return (
    <Page title="Invoices" actions={can.write(session.viewer.user.role) && !creating && <Button onClick={() => setCreating(true)}>Create invoice</Button>}>
      {creating && <InvoiceDraft onCancel={() => setCreating(false)} />}
      <ListFilters active={[status, search].filter(Boolean).length}>
        <Select label="Status" value={status} options={STATUSES} onChange={(v) => setFilter("status", v)} />
        <SearchField
          value={search}
          placeholder="Number, customer, amount, item…"
          hint="Finds a part of the number or id, the description, a line item or a metadata value, the customer's name or email, or an amount (12.5). Several words: all must match."
          onSearch={(text, how) => setFilter("search", text, how)}
        />
      </ListFilters>
      <Notice>{errorText(result.error)}</Notice>
      <InvoicesTable caption="Invoices" invoices={rows} empty="No invoices match." withCustomer />
      <Pager pageInfo={result.data?.invoices.pageInfo} onPage={paging.setCursor} />
    </Page>
  );
}

const CREATE = graphql(`mutation CreateInvoice($input: CreateInvoiceInput!) { createInvoice(input: $input) { id } }`);

/** What finalizing gives an invoice's payment to settle in (the server's default asset): a draft is priced in it. */
const INVOICE_ASSET = "XLM";

interface ItemDraft {
  description: string;
  quantity: string;
  unitAmount: string;
}

const AMOUNT = /^\d+(\.\d{1,7})?$/;
const QUANTITY = /^[1-9]\d{0,8}$/;

/** A line's total in stroops (quantity × unit amount, exact), or null while either is not a number yet. */
const lineTotal = (item: ItemDraft): bigint | null =>
  QUANTITY.test(item.quantity.trim()) && AMOUNT.test(item.unitAmount.trim()) ? BigInt(item.quantity.trim()) * toStroops(item.unitAmount.trim()) : null;

/** The fields a draft's errors may name (extensions.field), to show each beside its input. */
const draftFields = (items: ItemDraft[]) => [
  "customerId",
  "description",
  "dueInDays",
  ...items.flatMap((_, i) => [`items.${i}.description`, `items.${i}.quantity`, `items.${i}.unitAmount`]),
];

function InvoiceDraft(props: { onCancel: () => void }) {
  const [, navigate] = useLocation();
  const [customer, setCustomer] = useState<PickedCustomer | null>(null);
  const [description, setDescription] = useState("");
  const [dueInDays, setDueInDays] = useState("30");
  const [items, setItems] = useState<ItemDraft[]>([{ description: "", quantity: "1", unitAmount: "" }]);
  const [result, create] = useMutation(CREATE);
  const errors = formErrors(result.error, draftFields(items));
  const setItem = (index: number, change: Partial<ItemDraft>) => setItems(items.map((item, i) => (i === index ? { ...item, ...change } : item)));
  const totals = items.map(lineTotal);
  const subtotal = totals.every((t) => t !== null) ? totals.reduce<bigint>((sum, t) => sum + t!, 0n) : null;
  return (
    <form
      class="panel"
      onSubmit={async (e) => {
        e.preventDefault();
        const answer = await create({
          input: {
            customerId: customer?.id ?? null,
            description: description.trim() || null,
            dueInDays: Number(dueInDays),
            items: items.map((item) => ({ description: item.description, quantity: item.quantity.trim(), unitAmount: item.unitAmount.trim() })),
          },
        });
        if (answer.data) navigate(`/invoices/${answer.data.createInvoice.id}`);
      }}
    >
      <h2>New draft invoice</h2>
      <CustomerPicker value={customer} onChange={setCustomer} error={errors.of("customerId")} />
      <Field
        label="Description"
        hint="Shown to the customer on the invoice."
        value={description}
        error={errors.of("description")}
        onInput={(e) => setDescription(e.currentTarget.value)}
      />
      <Field
        label="Due in days"
        type="number"
        min={1}
        max={365}
        required
        value={dueInDays}
        error={errors.of("dueInDays")}
        onInput={(e) => setDueInDays(e.currentTarget.value)}
      />
      <fieldset class="items">
        <legend>Items (amounts in {INVOICE_ASSET})</legend>
        {items.map((item, i) => (
          <div class="item-row" key={i}>
            <Field
              id={`item-${i}-description`}
              label={`Item ${i + 1} description`}
              required
              value={item.description}
              error={errors.of(`items.${i}.description`)}
              onInput={(e) => setItem(i, { description: e.currentTarget.value })}
            />
            <Field
              id={`item-${i}-quantity`}
              label={`Item ${i + 1} quantity`}
              inputMode="numeric"
              required
              value={item.quantity}
              error={errors.of(`items.${i}.quantity`)}
              onInput={(e) => setItem(i, { quantity: e.currentTarget.value })}
            />
            <Field
              id={`item-${i}-unit`}
              label={`Item ${i + 1} unit amount (${INVOICE_ASSET})`}
              inputMode="decimal"
              required
              placeholder="10.00"
              value={item.unitAmount}
              error={errors.of(`items.${i}.unitAmount`)}
              onInput={(e) => setItem(i, { unitAmount: e.currentTarget.value })}
            />
            <p class="line-total" aria-live="polite">
              <span class="label">Item {i + 1} total</span>
              {totals[i] === null ? <span class="muted">—</span> : <Money amount={fromStroops(totals[i]!)} asset={{ assetCode: INVOICE_ASSET }} />}
            </p>
            {items.length > 1 && (
              <Button aria-label={`Remove item ${i + 1}`} onClick={() => setItems(items.filter((_, j) => j !== i))}>
                Remove
              </Button>
            )}
          </div>
        ))}
        <p class="subtotal" aria-live="polite">
          <span>Subtotal</span>
          {subtotal === null ? <span class="muted">Enter each item's quantity and unit amount</span> : <Money amount={fromStroops(subtotal)} asset={{ assetCode: INVOICE_ASSET }} />}
        </p>
        <Button onClick={() => setItems([...items, { description: "", quantity: "1", unitAmount: "" }])}>Add item</Button>
      </fieldset>
      <Notice>{errors.other}</Notice>
      <div class="actions">
        <Button type="submit" variant="primary" disabled={result.fetching}>
          Create draft
        </Button>
        <Button onClick={props.onCancel}>Cancel</Button>
      </div>
    </form>
  );
}

const INVOICE = graphql(`
  query Invoice($id: ID!) {
    invoice(id: $id) {
      id invoiceNumber status amount description dueAt createdAt finalizedAt paidAt voidedAt sentAt customerId
      customer { id name email }
      hostedInvoiceUrl checkoutUrl paymentIntentId
      settlementAsset { assetCode issuerAddress }
      items { description quantity unitAmount }
    }
  }
`);
const FINALIZE = graphql(`mutation FinalizeInvoice($id: ID!) { finalizeInvoice(id: $id) { id status } }`);
const VOID = graphql(`mutation VoidInvoice($id: ID!) { voidInvoice(id: $id) { id status } }`);
const SEND = graphql(`mutation SendInvoice($id: ID!) { sendInvoice(id: $id) { id sentAt } }`);
const MAILS = graphql(`
  query InvoiceMails($id: String!) {
    mailMessages(first: 10, resourceId: $id) { edges { node { id recipient subject status createdAt sentAt lastError } } }
  }
`);


/**
 * A mail's status as the merchant reads it: "logged" is what the service does without SMTP_URL (the
 * demo's way), which sends nothing: it says so, rather than a word for developers.
 */
const MAIL_STATUS_WORDS: Record<string, string> = {
  logged: "not sent: no mail server is set up, so it was written to the server's log",
};

const MAIL_CHANGES = graphql(`subscription InvoiceMailChanges($id: String!) { mailMessageChanges(resourceId: $id) { id status } }`);

export function InvoiceDetail(props: { params: { id: string } }) {
  const session = useSession();
  const [result, refetch] = useQuery({ query: INVOICE, variables: { id: props.params.id } });
  const [finalizing, finalize] = useMutation(FINALIZE);
  const [voiding, voidInvoice] = useMutation(VOID);
  const [sending, send] = useMutation(SEND);
  const [mails, refetchMails] = useQuery({ query: MAILS, variables: { id: props.params.id } });
  // The mail worker records each attempt (pending → sent, logged or failed) on whichever host sends
  // it: the list is read again as it does, so the open page shows it at once.
  useSubscription({ query: MAIL_CHANGES, variables: { id: props.params.id } }, () => refetchMails({ requestPolicy: "network-only" }));
  const invoice = result.data?.invoice;
  // Paid is its payment completing, on whichever host sees it on the ledger: read again as it does.
  usePaymentEvents((payment) => payment.id === invoice?.paymentIntentId && refetch({ requestPolicy: "network-only" }), invoice?.status !== "open");
  if (!invoice) return <Page title="Invoice">{result.error ? <Notice>{errorText(result.error)}</Notice> : <p>Loading…</p>}</Page>;
  const mayWrite = can.write(session.viewer.user.role);
  const sent = mails.data?.mailMessages.edges.map((e) => e.node) ?? [];
  return (
    <Page
      title={`Invoice ${invoice.invoiceNumber}`}
      actions={
        mayWrite && (
          <>
            {invoice.status === "draft" && (
              <Button variant="primary" disabled={finalizing.fetching} onClick={() => void finalize({ id: invoice.id })}>
                Finalize
              </Button>
            )}
            {invoice.status === "open" && (
              <Button disabled={sending.fetching} onClick={() => void send({ id: invoice.id })}>
                Send invoice
              </Button>
            )}
            {(invoice.status === "draft" || invoice.status === "open") && (
              <Button variant="danger" disabled={voiding.fetching} onClick={() => void voidInvoice({ id: invoice.id })}>
                Void
              </Button>
            )}
          </>
        )
      }
    >
      <Notice>{errorText(finalizing.error ?? voiding.error ?? sending.error)}</Notice>
      {sending.data && !sending.error && <Notice kind="ok">The invoice is on its way to the customer.</Notice>}
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <Status value={invoice.status} />
        </dd>
        <dt>Amount</dt>
        <dd>
          <Money amount={invoice.amount} asset={invoice.settlementAsset} />
        </dd>
        <dt>Description</dt>
        <dd class="invoice-description">{invoice.description ?? "—"}</dd>
        <dt>Due</dt>
        <dd>
          <When at={invoice.dueAt} />
        </dd>
        <dt>Customer</dt>
        <dd>{invoice.customer ? <CustomerLink customer={invoice.customer} /> : "—"}</dd>
        <dt>Sent</dt>
        <dd>
          <When at={invoice.sentAt} />
        </dd>
        <dt>Paid</dt>
        <dd>
          <When at={invoice.paidAt} />
        </dd>
        <dt>Payment</dt>
        <dd>{invoice.paymentIntentId ? <Link href={`/payments/${invoice.paymentIntentId}`}>{invoice.paymentIntentId}</Link> : "—"}</dd>
        <dt>Invoice page</dt>
        <dd>
          <a href={invoice.hostedInvoiceUrl}>{invoice.hostedInvoiceUrl}</a> <CopyButton value={invoice.hostedInvoiceUrl} label="invoice link" />
        </dd>
      </dl>
      <Table caption="Items" head={["Item", "Quantity", "Unit amount", "Total"]} rows={invoice.items.length} empty="No items: a single amount.">
        {invoice.items.map((item, i) => (
          <tr key={i}>
            <td>{item.description}</td>
            <td>{item.quantity}</td>
            <td>
              <Money amount={item.unitAmount} asset={invoice.settlementAsset} />
            </td>
            <td>
              <Money amount={fromStroops(BigInt(item.quantity) * toStroops(item.unitAmount))} asset={invoice.settlementAsset} />
            </td>
          </tr>
        ))}
        {invoice.items.length > 0 && (
          <tr class="subtotal-row">
            <th scope="row" colSpan={3}>
              Subtotal
            </th>
            <td>
              <strong>
                <Money amount={invoice.amount} asset={invoice.settlementAsset} />
              </strong>
            </td>
          </tr>
        )}
      </Table>
      <h2>Emails</h2>
      <Table caption="Emails about this invoice" head={["To", "Subject", "Status", "Queued", "Sent"]} rows={sent.length} empty="Not sent yet.">
        {sent.map((m) => (
          <tr key={m.id}>
            <td>{m.recipient}</td>
            <td>{m.subject}</td>
            <td>
              {MAIL_STATUS_WORDS[m.status] ?? m.status}
              {m.lastError && <div class="muted">{m.lastError}</div>}
            </td>
            <td>
              <When at={m.createdAt} />
            </td>
            <td>
              {/* written to the log is not sent: no time under "Sent" */}
              <When at={m.status === "logged" ? null : m.sentAt} />
            </td>
          </tr>
        ))}
      </Table>
    </Page>
  );
}

/** Invoices as every screen lists them: number (a link to its detail) and id, status in words, amount, due date, and the customer if asked. */
export function InvoicesTable(props: {
  caption: string;
  invoices: {
    id: string;
    invoiceNumber: string;
    status: string;
    amount: string;
    settlementAsset: { assetCode: string } | null;
    dueAt: string;
    customer?: PickedCustomer | null;
  }[];
  empty: string;
  withCustomer?: boolean;
}) {
  const head = ["Invoice", "Status", "Amount", "Due", ...(props.withCustomer ? ["Customer"] : [])];
  return (
    <Table caption={props.caption} head={head} rows={props.invoices.length} empty={props.empty}>
      {props.invoices.map((i) => (
        <tr key={i.id}>
          <td>
            <Link href={`/invoices/${i.id}`}>{i.invoiceNumber}</Link>
            <div>
              <code class="muted">{i.id}</code>
            </div>
          </td>
          <td>
            <Status value={i.status} />
          </td>
          <td>
            <Money amount={i.amount} asset={i.settlementAsset} />
          </td>
          <td>
            <When at={i.dueAt} />
          </td>
          {props.withCustomer && <td>{i.customer ? <CustomerLink customer={i.customer} /> : <span class="muted">—</span>}</td>}
        </tr>
      ))}
    </Table>
  );
}
