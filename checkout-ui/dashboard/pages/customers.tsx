// Customers: the list, create and edit, and one customer's payments and invoices.
import { useMutation, useQuery } from "@urql/preact";
import { useState } from "preact/hooks";
import { Link } from "wouter-preact";
import { Button, Field, ListFilters, Notice, Page, Pager, Table, When } from "../../components/ui.tsx";
import { errorText, formErrors, graphql } from "../graphql.ts";
import { SearchField } from "../components/search-field.tsx";
import { usePaging, useUrlFilters } from "../url-filters.ts";
import { can, useSession } from "../session.tsx";
import { InvoicesTable } from "./invoices.tsx";
import { PaymentsTable } from "./payments.tsx";

const CUSTOMERS = graphql(`
  query Customers($first: Int, $after: String, $last: Int, $before: String, $search: String) {
    customers(first: $first, after: $after, last: $last, before: $before, search: $search) {
      edges { node { id name email createdAt } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }
`);
const CREATE = graphql(`mutation CreateCustomer($input: CustomerInput!) { createCustomer(input: $input) { id } }`);
const UPDATE = graphql(`mutation UpdateCustomer($id: ID!, $input: CustomerInput!) { updateCustomer(id: $id, input: $input) { id name email description } }`);

export function Customers() {
  const session = useSession();
  const [{ search }, setFilter] = useUrlFilters(["search"]);
  const paging = usePaging();
  // the customer picker's search (customers(search:)), a page at a time
  const [result] = useQuery({ query: CUSTOMERS, variables: { ...paging.variables, search: search.trim() || null } });
  const [creating, setCreating] = useState(false);
  const rows = result.data?.customers.edges.map((e) => e.node) ?? [];
  return (
    <Page title="Customers" actions={can.write(session.viewer.user.role) && !creating && <Button onClick={() => setCreating(true)}>Add customer</Button>}>
      {creating && <CustomerForm onDone={() => setCreating(false)} />}
      <ListFilters active={search ? 1 : 0}>
        <SearchField
          value={search}
          placeholder="Name or email…"
          hint="Finds a part of a customer's name or email."
          onSearch={(text, how) => setFilter("search", text, how)}
        />
      </ListFilters>
      <Notice>{errorText(result.error)}</Notice>
      <Table caption="Customers" head={["Customer", "Email", "Created"]} rows={rows.length} empty={search.trim() ? "No customers match." : "No customers yet."}>
        {rows.map((c) => (
          <tr key={c.id}>
            <td>
              <Link href={`/customers/${c.id}`}>{c.name ?? c.email ?? c.id}</Link>
              <div>
                <code class="muted">{c.id}</code>
              </div>
            </td>
            <td>{c.email ?? "—"}</td>
            <td>
              <When at={c.createdAt} />
            </td>
          </tr>
        ))}
      </Table>
      <Pager pageInfo={result.data?.customers.pageInfo} onPage={paging.setCursor} />
    </Page>
  );
}

function CustomerForm(props: { customer?: { id: string; name: string | null; email: string | null; description: string | null }; onDone: () => void }) {
  const [name, setName] = useState(props.customer?.name ?? "");
  const [email, setEmail] = useState(props.customer?.email ?? "");
  const [description, setDescription] = useState(props.customer?.description ?? "");
  const [created, create] = useMutation(CREATE);
  const [updated, update] = useMutation(UPDATE);
  const errors = formErrors(created.error ?? updated.error, ["name", "email", "description"]);
  return (
    <form
      class="panel"
      onSubmit={async (e) => {
        e.preventDefault();
        const input = { name: name.trim() || null, email: email.trim() || null, description: description.trim() || null };
        const answer = props.customer ? await update({ id: props.customer.id, input }) : await create({ input });
        if (answer.data) props.onDone();
      }}
    >
      <h2>{props.customer ? "Edit customer" : "New customer"}</h2>
      <p class="hint">A name, an email or both: how you will find this customer again.</p>
      <Field label="Name" value={name} error={errors.of("name")} onInput={(e) => setName(e.currentTarget.value)} />
      <Field label="Customer email" type="email" value={email} error={errors.of("email")} onInput={(e) => setEmail(e.currentTarget.value)} />
      <Field label="Description" value={description} error={errors.of("description")} onInput={(e) => setDescription(e.currentTarget.value)} />
      <Notice>{errors.other}</Notice>
      <div class="actions">
        <Button type="submit" variant="primary" disabled={created.fetching || updated.fetching}>
          Save customer
        </Button>
        <Button onClick={props.onDone}>Cancel</Button>
      </div>
    </form>
  );
}

const CUSTOMER = graphql(`
  query Customer($id: ID!, $customerId: String!) {
    customer(id: $id) {
      id name email description createdAt
      payments(first: 20) { edges { node { id status amount createdAt settlementAsset { assetCode issuerAddress } } } }
    }
    invoices(first: 20, customerId: $customerId) { edges { node { id invoiceNumber status amount dueAt settlementAsset { assetCode issuerAddress } } } }
  }
`);

export function CustomerDetail(props: { params: { id: string } }) {
  const session = useSession();
  const [result] = useQuery({ query: CUSTOMER, variables: { id: props.params.id, customerId: props.params.id } });
  const [editing, setEditing] = useState(false);
  const customer = result.data?.customer;
  if (!customer) return <Page title="Customer">{result.error ? <Notice>{errorText(result.error)}</Notice> : <p>Loading…</p>}</Page>;
  const payments = customer.payments.edges.map((e) => e.node);
  const invoices = result.data?.invoices.edges.map((e) => e.node) ?? [];
  return (
    <Page title={customer.name ?? customer.email ?? customer.id} actions={can.write(session.viewer.user.role) && !editing && <Button onClick={() => setEditing(true)}>Edit customer</Button>}>
      {editing && <CustomerForm customer={customer} onDone={() => setEditing(false)} />}
      <dl class="facts">
        <dt>Id</dt>
        <dd>
          <code>{customer.id}</code>
        </dd>
        <dt>Email</dt>
        <dd>{customer.email ?? "—"}</dd>
        <dt>Description</dt>
        <dd>{customer.description ?? "—"}</dd>
        <dt>Created</dt>
        <dd>
          <When at={customer.createdAt} />
        </dd>
      </dl>
      <h2>Payments</h2>
      <PaymentsTable caption="Customer's payments" payments={payments} empty="No payments." />
      <h2>Invoices</h2>
      <InvoicesTable caption="Customer's invoices" invoices={invoices} empty="No invoices." />
    </Page>
  );
}
