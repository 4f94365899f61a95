// The page once a payment has an outcome: paid (with the receipt and the way back), or a final state.
import { useEffect } from "preact/hooks";
import { CopyButton } from "../components/ui.tsx";
import type { CheckoutView } from "./api.ts";
import { assetLabel, describeFailure, money, shortAddress } from "./format.ts";

export const FINAL: Record<string, [string, (v: CheckoutView) => string]> = {
  failed: ["Payment failed", (v) => describeFailure(v.failureReason)],
  expired: ["Payment expired", () => "This payment request has expired. Please ask the merchant for a new one."],
  inactive: ["Link inactive", () => "This payment link is inactive. Please contact the merchant."],
  void: ["Invoice void", () => "This invoice has been voided and can no longer be paid."],
  draft: ["Invoice not issued yet", () => "This invoice has not been finalized by the merchant yet."],
};

export function FinalSection({ view: v }: { view: CheckoutView }) {
  const [title, text] = FINAL[v.state]!;
  return (
    <section class={`result ${v.state}`}>
      <h2>{title}</h2>
      <p>{text(v)}</p>
    </section>
  );
}

export function PaidSection({ view: v }: { view: CheckoutView }) {
  const r = v.receipt;
  useEffect(() => {
    if (!v.successUrl) return;
    const timer = setTimeout(() => location.assign(v.successUrl!), 3000);
    return () => clearTimeout(timer);
  }, [v.successUrl]);
  return (
    <section class="result paid">
      <h2>Paid</h2>
      <p>{`Thank you. ${v.merchantName || "The merchant"} has received ${money(v.amount!, v.settlementAsset)}.`}</p>
      {r?.paidAsset && r.paidAsset.assetCode !== v.settlementAsset?.assetCode && <p class="muted">{`Paid with ${assetLabel(r.paidAsset)}.`}</p>}
      {r?.txHash && (
        <p class="receipt">
          Transaction{" "}
          {r.explorerUrl ? (
            <a href={r.explorerUrl} target="_blank" rel="noopener noreferrer">
              <code>{r.txHash}</code>
            </a>
          ) : (
            <code>{r.txHash}</code>
          )}
        </p>
      )}
      {r?.payerAddress && (
        // A contract account (C...) as well as an account (G...): the short form, the whole one copied.
        <dl>
          <div class="copy-row" data-testid="payer">
            <dt>Paid from</dt>
            <dd>
              <code title={r.payerAddress}>{shortAddress(r.payerAddress)}</code>
              <CopyButton value={r.payerAddress} label="payer address" />
            </dd>
          </div>
        </dl>
      )}
      {r?.confirmedAt && <p class="muted">{`Confirmed ${new Date(r.confirmedAt).toLocaleString()}`}</p>}
      {v.successUrl && (
        <p>
          <a href={v.successUrl}>Return to the merchant</a> (you are being redirected)
        </p>
      )}
    </section>
  );
}
