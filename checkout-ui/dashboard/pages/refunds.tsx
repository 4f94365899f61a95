// Refunds: the list (status and payment filters, cursor paging) and one refund's detail with its
// timeline, its signing (Freighter, a phone wallet's QR code, or copy and paste) and Cancel. Both
// follow their refunds live (Subscription.refundChanges): a payer's claim, a submission, the
// ledger's answer however the refund was signed show at once, without polling.
import "../refunds.css";
import { useMutation, useQuery, useSubscription } from "@urql/preact";
import { Link } from "wouter-preact";
import { Button, CopyButton, Field, ListFilters, Money, Notice, Page, Pager, Select, Status, Table, When } from "../../components/ui.tsx";
import { SignRefund } from "../components/sign-refund.tsx";
import { errorText, graphql, type ResultOf } from "../graphql.ts";
import { usePaging, useUrlFilters } from "../url-filters.ts";
import { refundInFlight } from "../money.ts";
import { can, useSession } from "../session.tsx";

export const REFUND_ROW = graphql(`
  fragment RefundRow on Refund @_unmask {
    id status amount reason paymentId ledgerOperationId createdAt completedAt txHash
    asset { assetCode issuerAddress }
  }
`);

const REFUNDS = graphql(
  `
  query Refunds($first: Int, $after: String, $last: Int, $before: String, $status: RefundStatus, $paymentId: String) {
    refunds(first: $first, after: $after, last: $last, before: $before, status: $status, paymentId: $paymentId) {
      edges { node { ...RefundRow } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    }
  }
`,
  [REFUND_ROW],
);

type Row = ResultOf<typeof REFUND_ROW>;

const STATUSES: [string, string][] = [
  ["", "Any status"],
  ["pending_claim", "Waiting for the payer"],
  ["requires_signature", "Needs your signature"],
  ["submitted", "Submitted"],
  ["succeeded", "Succeeded"],
  ["failed", "Failed"],
  ["canceled", "Canceled"],
];

/** The refunds of this environment as each moves; with an id, that refund (first as it is). */
const REFUND_CHANGES = graphql(`
  subscription RefundChanges($id: ID) { refundChanges(id: $id) { id status } }
`);

export function Refunds() {
  const [{ status, paymentId }, setFilter] = useUrlFilters(["status", "paymentId"]);
  const paging = usePaging();
  const [result, refetch] = useQuery({
    query: REFUNDS,
    variables: { ...paging.variables, status: (status || null) as Row["status"] | null, paymentId: paymentId.trim() || null },
  });
  const rows = result.data?.refunds.edges.map((e) => e.node) ?? [];
  // A new or moved refund refreshes the page shown (its place in the list, or in the filter, may be new).
  useSubscription({ query: REFUND_CHANGES, variables: { id: null } }, (_, pushed) => {
    refetch({ requestPolicy: "network-only" });
    return pushed;
  });
  return (
    <Page title="Refunds">
      <ListFilters active={[status, paymentId].filter(Boolean).length}>
        <Select label="Status" value={status} options={STATUSES} onChange={(v) => setFilter("status", v)} />
        <Field label="Payment id" value={paymentId} placeholder="pay_…" onInput={(e) => setFilter("paymentId", e.currentTarget.value, "type")} />
      </ListFilters>
      <Notice>{errorText(result.error)}</Notice>
      <RefundsTable caption="Refunds" refunds={rows} empty="No refunds match." />
      <Pager pageInfo={result.data?.refunds.pageInfo} onPage={paging.setCursor} />
    </Page>
  );
}

/** Refunds as every screen lists them: the id (a link to its detail), status in words, amount, what it sends back, when. */
export function RefundsTable(props: { caption: string; refunds: Row[]; empty: string }) {
  return (
    <div class="refunds-table">
      <Table caption={props.caption} head={["Refund", "Status", "Amount", "Of", "Created"]} rows={props.refunds.length} empty={props.empty}>
        {props.refunds.map((r) => (
          <tr key={r.id}>
            <td>
              <Link href={`/refunds/${r.id}`}>
                <code>{r.id}</code>
              </Link>
            </td>
            <td>
              <Status value={r.status} />
            </td>
            <td>
              <Money amount={r.amount} asset={r.asset} />
            </td>
            <td>
              {r.paymentId ? (
                <Link href={`/payments/${r.paymentId}`}>
                  <code>{r.paymentId}</code>
                </Link>
              ) : (
                <span>unmatched payment</span>
              )}
            </td>
            <td>
              <When at={r.createdAt} />
            </td>
          </tr>
        ))}
      </Table>
    </div>
  );
}

const REFUND = graphql(
  `
  query Refund($id: ID!) {
    refund(id: $id) {
      ...RefundRow
      destinationAddress destinationMemo destinationMemoType claimUrl failureReason sourceAddress networkPassphrase updatedAt explorerUrl
      events { type at actor detail }
    }
  }
`,
  [REFUND_ROW],
);

const CANCEL_REFUND = graphql(`
  mutation CancelRefund($id: ID!) { cancelRefund(id: $id) { id status completedAt updatedAt claimUrl } }
`);

/** Each step of the timeline in words. */
const STEP_WORDS: Record<string, string> = {
  created: "Created",
  claimed: "Claimed by the payer",
  transaction_ready: "Transaction ready to sign",
  submitted: "Sent to the network",
  succeeded: "Succeeded: the money is back",
  failed: "Failed on the ledger",
  canceled: "Canceled",
};

export function RefundDetail(props: { params: { id: string } }) {
  const session = useSession();
  const [result, refetch] = useQuery({ query: REFUND, variables: { id: props.params.id } });
  const [canceling, cancel] = useMutation(CANCEL_REFUND);
  const r = result.data?.refund;
  // Each move of it (the payer's claim included) reads it again, timeline and all.
  useSubscription({ query: REFUND_CHANGES, variables: { id: props.params.id }, pause: !r || !refundInFlight(r.status) }, (_, pushed) => {
    refetch({ requestPolicy: "network-only" });
    return pushed;
  });
  if (!r) return <Page title="Refund">{result.error ? <Notice>{errorText(result.error)}</Notice> : <p>Loading…</p>}</Page>;
  const mayAct = can.write(session.viewer.user.role);
  return (
    <Page
      title={`Refund ${r.id}`}
      actions={
        mayAct &&
        (r.status === "pending_claim" || r.status === "requires_signature") && (
          <Button variant="danger" disabled={canceling.fetching} onClick={() => void cancel({ id: r.id })}>
            Cancel refund
          </Button>
        )
      }
    >
      <Notice>{errorText(canceling.error)}</Notice>
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <Status value={r.status} />
        </dd>
        <dt>Amount</dt>
        <dd>
          <Money amount={r.amount} asset={r.asset} />
        </dd>
        <dt>Of</dt>
        <dd>
          {r.paymentId ? (
            <Link href={`/payments/${r.paymentId}`}>
              <code>{r.paymentId}</code>
            </Link>
          ) : (
            <>
              unmatched ledger payment <code>{r.ledgerOperationId}</code>
            </>
          )}
        </dd>
        <dt>Reason</dt>
        <dd>{r.reason ?? "—"}</dd>
        <dt>To</dt>
        <dd>
          {r.destinationAddress ? (
            <>
              <code>{r.destinationAddress}</code>
              {r.destinationMemo && (
                <>
                  {" "}
                  with memo <code>{r.destinationMemo}</code> ({r.destinationMemoType})
                </>
              )}
            </>
          ) : (
            "The payer says where, on the claim page"
          )}
        </dd>
        <dt>From</dt>
        <dd>
          <code>{r.sourceAddress}</code> (settlement wallet)
        </dd>
        <dt>Ledger transaction</dt>
        <dd>
          {r.txHash && r.explorerUrl ? (
            <a href={r.explorerUrl} target="_blank" rel="noreferrer">
              <code>{r.txHash}</code>
            </a>
          ) : (
            <code>{r.txHash ?? "—"}</code>
          )}
        </dd>
        {r.failureReason && (
          <>
            <dt>Failure</dt>
            <dd>{r.failureReason}</dd>
          </>
        )}
      </dl>
      {r.status === "pending_claim" && r.claimUrl && (
        <section class="panel" aria-labelledby="claim-title">
          <h2 id="claim-title">Waiting for the payer</h2>
          <p>
            The account that paid needs a memo (an exchange, say) or could not be told. Send the payer this link: they say where the money goes, then you sign
            it here.
          </p>
          <p class="secret-row">
            <code>{r.claimUrl}</code>
            <CopyButton value={r.claimUrl} label="claim link" />
          </p>
        </section>
      )}
      {r.status === "requires_signature" && mayAct && <SignRefund refund={r} />}
      {r.status === "submitted" && <Notice kind="ok">Sent to the network: this page updates when the ledger has it.</Notice>}
      <h2 id="timeline-title">Timeline</h2>
      <ol class="timeline" aria-labelledby="timeline-title">
        {r.events.map((step, i) => (
          <li key={`${step.type}-${i}`}>
            <p>
              <strong>{STEP_WORDS[step.type] ?? step.type}</strong> <When at={step.at} />
            </p>
            <p class="muted">{`By ${step.actor ?? (step.type === "succeeded" || step.type === "failed" ? "the ledger" : "the service")}`}</p>
            {step.detail && <code>{step.detail}</code>}
          </li>
        ))}
      </ol>
    </Page>
  );
}
