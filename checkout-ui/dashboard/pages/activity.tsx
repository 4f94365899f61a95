// Activity: the audit log, newest first: who created or revoked a key, changed a wallet or a role,
// removed a teammate, turned two-factor sign-in on or off. Owners and admins only (the server says so too).
import { useQuery } from "@urql/preact";
import { Notice, Page, Pager, Table, When } from "../../components/ui.tsx";
import { errorText, graphql } from "../graphql.ts";
import { usePaging } from "../url-filters.ts";
import { can, useSession } from "../session.tsx";

const AUDIT_LOG = graphql(`
  query AuditLog($first: Int, $after: String, $last: Int, $before: String) {
    auditLog(first: $first, after: $after, last: $last, before: $before) {
      edges { node { id action environment resourceId actorKind actorLabel detail createdAt } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }
`);

const ACTIONS: Record<string, string> = {
  API_KEY_CREATED: "API key created",
  API_KEY_REVOKED: "API key revoked",
  WEBHOOK_SECRET_ROTATED: "Webhook secret rotated",
  PAYMENT_MARKED_COMPLETED: "Payment marked completed",
  REFUND_CREATED: "Refund created",
  REFUND_SUBMITTED: "Refund signed and sent",
  REFUND_CANCELED: "Refund canceled",
  LEDGER_PAYMENT_APPLIED: "Unmatched payment applied",
  USER_ROLE_CHANGED: "Role changed",
  USER_REMOVED: "Teammate removed",
  SETTLEMENT_WALLET_CHANGED: "Settlement wallet changed",
  TWO_FACTOR_ENABLED: "Two-factor sign-in turned on",
  TWO_FACTOR_DISABLED: "Two-factor sign-in turned off",
  TWO_FACTOR_REQUIRED: "Two-factor sign-in required for everyone",
  TWO_FACTOR_NO_LONGER_REQUIRED: "Two-factor sign-in no longer required",
};

export function Activity() {
  const session = useSession();
  const mayRead = can.manage(session.viewer.user.role);
  const paging = usePaging();
  const [result] = useQuery({ query: AUDIT_LOG, variables: paging.variables, pause: !mayRead });
  const rows = result.data?.auditLog.edges.map((e) => e.node) ?? [];
  return (
    <Page title="Activity">
      <p class="muted">Sensitive changes in this organization, in both environments, newest first.</p>
      {!mayRead ? (
        <Notice kind="ok">Only owners and admins see the activity.</Notice>
      ) : (
        <>
          <Notice>{errorText(result.error)}</Notice>
          <Table caption="Activity" head={["When", "What", "Who", "Resource", "Details"]} rows={rows.length} empty="Nothing has happened yet.">
            {rows.map((entry) => (
              <tr key={entry.id}>
                <td>
                  <When at={entry.createdAt} />
                </td>
                <td>
                  {ACTIONS[entry.action] ?? entry.action}
                  {entry.environment === "production" && <span class="muted"> (live)</span>}
                </td>
                <td>{entry.actorKind === "key" ? <code>{entry.actorLabel}…</code> : entry.actorLabel}</td>
                <td>
                  <code>{entry.resourceId}</code>
                </td>
                <td>{entry.detail ?? "—"}</td>
              </tr>
            ))}
          </Table>
          <Pager pageInfo={result.data?.auditLog.pageInfo} onPage={paging.setCursor} />
        </>
      )}
    </Page>
  );
}
