// Checkout sessions and unmatched ledger payments: read-only lists.
import { useQuery } from "@urql/preact";
import { useState } from "preact/hooks";
import { Link } from "wouter-preact";
import { Money, Notice, Page, Pager, Select, Status, Table, When, usePaging } from "../../components/ui.tsx";
import { errorText, graphql } from "../graphql.ts";

const SESSIONS = graphql(`
  query CheckoutSessions($first: Int, $after: String, $last: Int, $before: String, $status: CheckoutSessionStatus) {
    checkoutSessions(first: $first, after: $after, last: $last, before: $before, status: $status) {
      edges { node { id status amount createdAt expiresAt paymentIntentId paymentLinkId settlementAsset { assetCode issuerAddress } } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }
`);

const STATUSES: [string, string][] = [
  ["", "Any status"],
  ["open", "Open"],
  ["complete", "Complete"],
  ["expired", "Expired"],
];

export function CheckoutSessions() {
  const paging = usePaging();
  const [status, setStatus] = useState("");
  const [result] = useQuery({ query: SESSIONS, variables: { ...paging.variables, status: (status || null) as "open" | null } });
  const rows = result.data?.checkoutSessions.edges.map((e) => e.node) ?? [];
  return (
    <Page title="Checkout sessions">
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <Select label="Status" value={status} options={STATUSES} onChange={(v) => (setStatus(v), paging.reset())} />
      </form>
      <Notice>{errorText(result.error)}</Notice>
      <Table caption="Checkout sessions" head={["Session", "Status", "Amount", "Payment", "Created", "Expires"]} rows={rows.length} empty="No checkout sessions match.">
        {rows.map((s) => (
          <tr key={s.id}>
            <td>
              <code>{s.id}</code>
              {s.paymentLinkId && <div class="muted">from {s.paymentLinkId}</div>}
            </td>
            <td>
              <Status value={s.status} />
            </td>
            <td>
              <Money amount={s.amount} asset={s.settlementAsset} />
            </td>
            <td>
              <Link href={`/payments/${s.paymentIntentId}`}>
                <code>{s.paymentIntentId}</code>
              </Link>
            </td>
            <td>
              <When at={s.createdAt} />
            </td>
            <td>
              <When at={s.expiresAt} />
            </td>
          </tr>
        ))}
      </Table>
      <Pager pageInfo={result.data?.checkoutSessions.pageInfo} onPage={paging.setCursor} />
    </Page>
  );
}

const UNMATCHED = graphql(`
  query Unmatched($first: Int, $after: String, $last: Int, $before: String) {
    unmatchedLedgerPayments(first: $first, after: $after, last: $last, before: $before) {
      edges { node { operationId txHash sourceAccount amount memo memoType ledgerCreatedAt asset { assetCode issuerAddress } } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }
`);

export function UnmatchedPayments() {
  const paging = usePaging();
  const [result] = useQuery({ query: UNMATCHED, variables: paging.variables });
  const rows = result.data?.unmatchedLedgerPayments.edges.map((e) => e.node) ?? [];
  return (
    <Page title="Unmatched payments">
      <p class="muted">Money that reached your settlement wallet without a memo of any payment: refund it or mark the payment it was meant for as completed.</p>
      <Notice>{errorText(result.error)}</Notice>
      <Table caption="Unmatched ledger payments" head={["Transaction", "From", "Amount", "Memo", "When"]} rows={rows.length} empty="Nothing unmatched.">
        {rows.map((p) => (
          <tr key={p.operationId}>
            <td>
              <code>{p.txHash}</code>
            </td>
            <td>
              <code>{p.sourceAccount}</code>
            </td>
            <td>
              <Money amount={p.amount} asset={p.asset} />
            </td>
            <td>{p.memo ? `${p.memo} (${p.memoType})` : "none"}</td>
            <td>
              <When at={p.ledgerCreatedAt} />
            </td>
          </tr>
        ))}
      </Table>
      <Pager pageInfo={result.data?.unmatchedLedgerPayments.pageInfo} onPage={paging.setCursor} />
    </Page>
  );
}
