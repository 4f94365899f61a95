// Paying without a browser extension: the SEP-7 link that opens the phone's wallet app, its QR code
// for a wallet on another device, and each detail with its own Copy button, all shown at once.
import { useEffect, useState } from "preact/hooks";
import { QrCode } from "../components/qr.tsx";
import { CopyButton } from "../components/ui.tsx";
import type { CheckoutView } from "./api.ts";

const PHONE = "(max-width: 40rem)";

/** Whether the screen is phone-sized: there the wallet app is the payer's first way to pay. */
export function usePhoneScreen(): boolean {
  const [phone, setPhone] = useState(() => matchMedia(PHONE).matches);
  useEffect(() => {
    const query = matchMedia(PHONE);
    const change = () => setPhone(query.matches);
    query.addEventListener("change", change);
    return () => query.removeEventListener("change", change);
  }, []);
  return phone;
}

/** The SEP-7 URI as a link: on a phone it opens the wallet app there; first and primary on a phone. */
export const OpenInWallet = (props: { uri: string; primary: boolean }) => (
  <a class={`button ${props.primary ? "primary" : "secondary"} wallet-link`} href={props.uri}>
    Open in wallet
  </a>
);

/** `copies`: what its Copy button names, where the label alone would not say it (default: the label). */
function CopyRow(props: { label: string; value: string; copies?: string }) {
  return (
    <div class="copy-row">
      <dt>{props.label}</dt>
      <dd>
        <code>{props.value}</code>
        <CopyButton value={props.value} label={props.copies ?? props.label.toLowerCase()} />
      </dd>
    </div>
  );
}

const sep7Amount = (uri: string) => new URLSearchParams(uri.split("?")[1] ?? "").get("amount");

export function PaymentDetails(props: { view: CheckoutView; withWalletLink: boolean }) {
  const v = props.view;
  const i = v.instructions!;
  const due = v.amountReceived && v.amount && v.amountReceived !== "0.0000000" ? "Amount still due" : "Amount";
  return (
    <section class="mobile" aria-labelledby="mobile-title">
      <h2 id="mobile-title">Pay from a mobile wallet</h2>
      <p class="muted">Scan the code with your Stellar wallet app, or copy the details. Include the memo: it tells the shop the payment is yours.</p>
      <div class="qr-box">
        <QrCode value={i.sep7Uri} label="QR code of the payment request for a mobile wallet" />
        {props.withWalletLink && <OpenInWallet uri={i.sep7Uri} primary={false} />}
      </div>
      <dl>
        <CopyRow label="Destination" value={i.destination} />
        <CopyRow label="Memo ID" value={i.memo} copies="memo ID" />
        <CopyRow label={due} value={sep7Amount(i.sep7Uri) ?? v.amount ?? ""} />
        <CopyRow label="Or this one address, memo built in" value={i.muxedDestination} copies="address with the memo built in" />
      </dl>
    </section>
  );
}
