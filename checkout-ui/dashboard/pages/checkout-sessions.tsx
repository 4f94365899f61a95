// Checkout sessions: a read-only list.
import { useQuery } from "@urql/preact";
import { Link } from "wouter-preact";
import { ListFilters, Money, Notice, Page, Pager, Select, Status, Table, When } from "../../components/ui.tsx";
import { errorText, graphql } from "../graphql.ts";
import { usePaging, useUrlFilters } from "../url-filters.ts";

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
  const [{ status }, setFilter] = useUrlFilters(["status"]);
  const paging = usePaging();
  const [result] = useQuery({ query: SESSIONS, variables: { ...paging.variables, status: (status || null) as "open" | null } });
  const rows = result.data?.checkoutSessions.edges.map((e) => e.node) ?? [];
  return (
    <Page title="Checkout sessions">
      <ListFilters active={[status].filter(Boolean).length}>
        <Select label="Status" value={status} options={STATUSES} onChange={(v) => setFilter("status", v)} />
      </ListFilters>
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
