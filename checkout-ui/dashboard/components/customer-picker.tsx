// Choosing the customer of an invoice or a payment: search the merchant's customers by name or
// email as they type (the latest first when nothing is typed), or add one on the spot, without
// leaving the form. Shows who was chosen by name and email, never by a cus_ id alone.
import { useMutation, useQuery } from "@urql/preact";
import { useState } from "preact/hooks";
import { Link } from "wouter-preact";
import { Button, Field, Notice } from "../../components/ui.tsx";
import { formErrors, graphql } from "../graphql.ts";

export interface PickedCustomer {
  id: string;
  name: string | null;
  email: string | null;
}

const SEARCH = graphql(`
  query PickCustomer($search: String) {
    customers(first: 8, search: $search) { edges { node { id name email } } }
  }
`);
const CREATE = graphql(`mutation AddCustomerInline($input: CustomerInput!) { createCustomer(input: $input) { id name email } }`);

/** A customer in words: the name and the email, whichever it has. */
export const CustomerWho = (props: { customer: PickedCustomer }) => (
  <span class="customer-who">
    {props.customer.name ?? props.customer.email}
    {props.customer.name && props.customer.email && <span class="customer-who-email"> · {props.customer.email}</span>}
  </span>
);

/** A customer by name and email, linking to its page. */
export const CustomerLink = (props: { customer: PickedCustomer }) => (
  <Link href={`/customers/${props.customer.id}`}>
    <CustomerWho customer={props.customer} />
  </Link>
);

export function CustomerPicker(props: { value: PickedCustomer | null; onChange: (customer: PickedCustomer | null) => void; error?: string | null }) {
  const [search, setSearch] = useState("");
  const [adding, setAdding] = useState(false);
  if (props.value) {
    return (
      <div class="field picker">
        <span class="label" id="customer-chosen-label">
          <strong>Customer</strong>
        </span>
        <div class="picker-chosen" aria-labelledby="customer-chosen-label" role="group">
          <CustomerWho customer={props.value} />
          <Button onClick={() => props.onChange(null)} aria-label="Change customer">
            Change
          </Button>
        </div>
        {props.error && <p class="field-error" role="alert">{props.error}</p>}
      </div>
    );
  }
  return (
    <div class="picker">
      <Field
        label="Customer (optional)"
        id="customer-search"
        type="search"
        autoComplete="off"
        placeholder="Search by name or email"
        value={search}
        error={props.error}
        onInput={(e) => setSearch(e.currentTarget.value)}
      />
      {!adding && <CustomerResults search={search} onPick={props.onChange} />}
      {adding ? (
        <NewCustomerInline start={search} onAdded={(customer) => (setAdding(false), props.onChange(customer))} onCancel={() => setAdding(false)} />
      ) : (
        <Button onClick={() => setAdding(true)}>New customer</Button>
      )}
    </div>
  );
}

function CustomerResults(props: { search: string; onPick: (customer: PickedCustomer) => void }) {
  const [result] = useQuery({ query: SEARCH, variables: { search: props.search.trim() || null } });
  const found = result.data?.customers.edges.map((e) => e.node) ?? [];
  if (!result.data) return null;
  if (found.length === 0) return <p class="muted">{props.search.trim() ? `No customer matches “${props.search.trim()}”.` : "No customers yet."}</p>;
  return (
    <ul class="picker-results" aria-label={props.search.trim() ? "Matching customers" : "Latest customers"}>
      {found.map((c) => (
        <li key={c.id}>
          <button type="button" onClick={() => props.onPick(c)}>
            <CustomerWho customer={c} />
          </button>
        </li>
      ))}
    </ul>
  );
}

/** Name and email of a customer to add now; what was searched for fills the one it looks like. */
function NewCustomerInline(props: { start: string; onAdded: (customer: PickedCustomer) => void; onCancel: () => void }) {
  const looksLikeEmail = props.start.includes("@");
  const [name, setName] = useState(looksLikeEmail ? "" : props.start.trim());
  const [email, setEmail] = useState(looksLikeEmail ? props.start.trim() : "");
  const [created, create] = useMutation(CREATE);
  const errors = formErrors(created.error, ["name", "email"]);
  const add = async () => {
    const answer = await create({ input: { name: name.trim() || null, email: email.trim() || null } });
    if (answer.data) props.onAdded(answer.data.createCustomer);
  };
  return (
    // Not a <form>: it sits inside the invoice's or payment's form; Enter in its fields adds the customer.
    <div
      class="inline-form"
      role="group"
      aria-label="New customer"
      onKeyDown={(e) => {
        if (e.key === "Enter" && (e.target as HTMLElement).tagName === "INPUT") {
          e.preventDefault();
          void add();
        }
      }}
    >
      <Field label="New customer's name" value={name} error={errors.of("name")} onInput={(e) => setName(e.currentTarget.value)} />
      <Field label="New customer's email" type="email" value={email} error={errors.of("email")} onInput={(e) => setEmail(e.currentTarget.value)} />
      <Notice>{errors.other}</Notice>
      <div class="actions">
        <Button variant="primary" disabled={created.fetching} onClick={() => void add()}>
          Add customer
        </Button>
        <Button onClick={props.onCancel}>Cancel</Button>
      </div>
    </div>
  );
}
