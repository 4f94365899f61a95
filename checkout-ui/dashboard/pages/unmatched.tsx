// Unmatched payments, the desk for money that reached the settlement wallet without naming a payment
// (wrong or missing memo, unknown muxed id, wrong asset, after the payment was settled): each can be
// applied to a payment the merchant picks (counted as received on it) or sent back through a refund.
import { useMutation, useQuery } from "@urql/preact";
import { useState } from "preact/hooks";
import { Link } from "wouter-preact";
import { Button, Field, Money, Notice, Page, Pager, Select, Table, When } from "../../components/ui.tsx";
import { formatAmount } from "../../src/format.ts";
import { RefundForm } from "../components/refund-form.tsx";
import { errorText, graphql, type ResultOf } from "../graphql.ts";
import { usePaging } from "../url-filters.ts";
import { can, useSession } from "../session.tsx";

const UNMATCHED = graphql(`
  query Unmatched($first: Int, $after: String, $last: Int, $before: String) {
    unmatchedLedgerPayments(first: $first, after: $after, last: $last, before: $before) {
      edges { node { operationId txHash sourceAccount amount memo memoType ledgerCreatedAt refundId asset { assetCode issuerAddress } } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }
`);

type Unmatched = ResultOf<typeof UNMATCHED>["unmatchedLedgerPayments"]["edges"][number]["node"];

export function UnmatchedPayments() {
  const session = useSession();
  const paging = usePaging();
  const [result] = useQuery({ query: UNMATCHED, variables: paging.variables });
  const [action, setAction] = useState<{ kind: "apply" | "refund"; row: Unmatched } | null>(null);
  const [applied, setApplied] = useState<{ paymentId: string; status: string } | null>(null);
  const rows = result.data?.unmatchedLedgerPayments.edges.map((e) => e.node) ?? [];
  const mayAct = can.write(session.viewer.user.role);
  return (
    <Page title="Unmatched payments">
      <p class="muted">Money that reached your settlement wallet without the memo of any payment: apply it to the payment it was meant for, or refund it.</p>
      <Notice>{errorText(result.error)}</Notice>
      {applied && (
        <Notice kind="ok">
          Applied to <Link href={`/payments/${applied.paymentId}`}>{applied.paymentId}</Link>, now {applied.status}.
        </Notice>
      )}
      <Table caption="Unmatched ledger payments" head={["Transaction", "From", "Amount", "Memo", "When", "Resolution"]} rows={rows.length} empty="Nothing unmatched.">
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
            <td>
              <div class="row-actions">
                {p.refundId ? (
                  <Link href={`/refunds/${p.refundId}`}>
                    Sent back by <code>{p.refundId}</code>
                  </Link>
                ) : mayAct ? (
                  <>
                    <Button aria-label={`Apply to a payment: ${formatAmount(p.amount)} ${p.asset.assetCode} from ${p.sourceAccount}`} onClick={() => (setApplied(null), setAction({ kind: "apply", row: p }))}>
                      Apply to a payment
                    </Button>
                    <Button aria-label={`Refund ${formatAmount(p.amount)} ${p.asset.assetCode} to ${p.sourceAccount}`} onClick={() => (setApplied(null), setAction({ kind: "refund", row: p }))}>
                      Refund
                    </Button>
                  </>
                ) : (
                  <span class="muted">Open</span>
                )}
              </div>
            </td>
          </tr>
        ))}
      </Table>
      <Pager pageInfo={result.data?.unmatchedLedgerPayments.pageInfo} onPage={paging.setCursor} />
      {action?.kind === "apply" && (
        <ApplyForm
          unmatched={action.row}
          key={action.row.operationId}
          onCancel={() => setAction(null)}
          onApplied={(payment) => {
            setAction(null);
            setApplied(payment);
          }}
        />
      )}
      {action?.kind === "refund" && (
        <RefundForm
          key={action.row.operationId}
          of={{ operationId: action.row.operationId }}
          title="Refund an unmatched payment"
          amount={formatAmount(action.row.amount)}
          assetCode={action.row.asset.assetCode}
          onCancel={() => setAction(null)}
        />
      )}
    </Page>
  );
}

/** The payments it could be for, of the same asset, newest first: the pending ones, or any that a search names. */
const CANDIDATES = graphql(`
  query ApplyCandidates($search: String, $status: PaymentStatus) {
    payments(first: 50, status: $status, search: $search) {
      edges { node { id amount amountReceived description createdAt settlementAsset { assetCode issuerAddress } } }
    }
  }
`);

const APPLY = graphql(`
  mutation ApplyUnmatched($operationId: String!, $paymentId: String!, $reason: String!) {
    applyUnmatchedLedgerPayment(operationId: $operationId, paymentId: $paymentId, reason: $reason) { id status amountReceived }
  }
`);

const sameAsset = (a: { assetCode: string; issuerAddress: string | null }, b: { assetCode: string; issuerAddress: string | null }) =>
  a.assetCode === b.assetCode && (a.issuerAddress ?? null) === (b.issuerAddress ?? null);

function ApplyForm(props: { unmatched: Unmatched; onCancel: () => void; onApplied: (payment: { paymentId: string; status: string }) => void }) {
  const [search, setSearch] = useState("");
  const [paymentId, setPaymentId] = useState("");
  const [reason, setReason] = useState("");
  const [candidates] = useQuery({ query: CANDIDATES, variables: { search: search.trim() || null, status: search.trim() ? null : "pending" } });
  const [applying, apply] = useMutation(APPLY);
  const options = (candidates.data?.payments.edges.map((e) => e.node) ?? []).filter((p) => sameAsset(p.settlementAsset, props.unmatched.asset));
  const chosen = paymentId || options[0]?.id || "";
  return (
    <form
      class="panel desk-form"
      aria-label="Apply to a payment"
      onSubmit={async (e) => {
        e.preventDefault();
        const answer = await apply({ operationId: props.unmatched.operationId, paymentId: chosen, reason: reason.trim() });
        const payment = answer.data?.applyUnmatchedLedgerPayment;
        if (payment) props.onApplied({ paymentId: payment.id, status: payment.status });
      }}
    >
      <h2>Apply to a payment</h2>
      <p>
        <Money amount={props.unmatched.amount} asset={props.unmatched.asset} /> from <code>{props.unmatched.sourceAccount}</code> counts as received on the
        payment you pick, and completes it when covered.
      </p>
      <Field label="Find a payment" type="search" value={search} placeholder="pay_… or tx hash" onInput={(e) => (setSearch(e.currentTarget.value), setPaymentId(""))} />
      {options.length === 0 ? (
        <p class="muted">{candidates.fetching ? "Looking for payments…" : `No ${search.trim() ? "" : "pending "}payment in ${props.unmatched.asset.assetCode} matches.`}</p>
      ) : (
        <Select
          label="Payment"
          value={chosen}
          options={options.map((p) => [p.id, `${p.id} · ${formatAmount(p.amount)} ${p.settlementAsset.assetCode}, ${formatAmount(p.amountReceived)} received${p.description ? ` · ${p.description}` : ""}`])}
          onChange={setPaymentId}
        />
      )}
      <Field label="Reason" required maxLength={500} value={reason} hint="Kept in the activity log." onInput={(e) => setReason(e.currentTarget.value)} />
      <Notice>{errorText(candidates.error ?? applying.error)}</Notice>
      <div class="actions">
        <Button type="submit" variant="primary" disabled={!chosen || applying.fetching}>
          Apply
        </Button>
        <Button onClick={props.onCancel}>Cancel</Button>
      </div>
    </form>
  );
}
