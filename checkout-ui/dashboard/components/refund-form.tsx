// Starting a refund: of a payment (its Refund and "Refund the excess" buttons) or of an unmatched
// ledger payment (the desk's Refund). The amount comes prefilled; the refund goes to the account that
// paid unless another one is given. On success the screen moves to the new refund, to sign it.
import { useMutation } from "@urql/preact";
import { useMemo, useState } from "preact/hooks";
import { useLocation } from "wouter-preact";
import { Button, Field, Notice } from "../../components/ui.tsx";
import { errorText, graphql } from "../graphql.ts";

const CREATE_REFUND = graphql(`
  mutation CreateRefund($input: CreateRefundInput!, $idempotencyKey: String) {
    createRefund(input: $input, idempotencyKey: $idempotencyKey) { id status }
  }
`);

const REFUND_UNMATCHED = graphql(`
  mutation RefundUnmatched($input: RefundUnmatchedLedgerPaymentInput!, $idempotencyKey: String) {
    refundUnmatchedLedgerPayment(input: $input, idempotencyKey: $idempotencyKey) { id status }
  }
`);

export type RefundOf = { paymentId: string } | { operationId: string };

export function RefundForm(props: { of: RefundOf; title: string; amount: string; assetCode: string; reason?: string; onCancel: () => void }) {
  const [, navigate] = useLocation();
  const [amount, setAmount] = useState(props.amount);
  const [reason, setReason] = useState(props.reason ?? "");
  const [address, setAddress] = useState("");
  const [memo, setMemo] = useState("");
  const [forPayment, createForPayment] = useMutation(CREATE_REFUND);
  const [forUnmatched, createForUnmatched] = useMutation(REFUND_UNMATCHED);
  // One key per form: pressing twice (or a retried request) makes one refund.
  const idempotencyKey = useMemo(() => crypto.randomUUID(), []);
  const busy = forPayment.fetching || forUnmatched.fetching;

  async function submit(event: Event) {
    event.preventDefault();
    // Fields left empty are left out (the server's defaults apply), not sent as null.
    const common = {
      ...(amount.trim() && { amount: amount.trim() }),
      ...(reason.trim() && { reason: reason.trim() }),
      ...(address.trim() && { destination: { address: address.trim(), ...(memo.trim() && { memo: memo.trim() }) } }),
    };
    const created =
      "paymentId" in props.of
        ? (await createForPayment({ input: { paymentId: props.of.paymentId, ...common }, idempotencyKey })).data?.createRefund
        : (await createForUnmatched({ input: { operationId: props.of.operationId, ...common }, idempotencyKey })).data?.refundUnmatchedLedgerPayment;
    if (created) navigate(`/refunds/${created.id}`);
  }

  return (
    <form class="panel desk-form" aria-label={props.title} onSubmit={submit}>
      <h2>{props.title}</h2>
      <Field label={`Amount (${props.assetCode})`} required inputMode="decimal" value={amount} onInput={(e) => setAmount(e.currentTarget.value)} />
      <Field label="Reason" maxLength={500} value={reason} hint="Kept on the refund and in the activity log." onInput={(e) => setReason(e.currentTarget.value)} />
      <details>
        <summary>Send it to another account</summary>
        <p class="muted">By default the money goes back to the account that paid. If that account needs a memo (an exchange), the payer gets a link to say where.</p>
        <Field label="Destination account (optional)" value={address} placeholder="G…" onInput={(e) => setAddress(e.currentTarget.value)} />
        <Field label="Destination memo (optional)" value={memo} onInput={(e) => setMemo(e.currentTarget.value)} />
      </details>
      <Notice>{errorText(forPayment.error ?? forUnmatched.error)}</Notice>
      <div class="actions">
        <Button type="submit" variant="primary" disabled={busy}>
          Create refund
        </Button>
        <Button onClick={props.onCancel}>Cancel</Button>
      </div>
    </form>
  );
}
