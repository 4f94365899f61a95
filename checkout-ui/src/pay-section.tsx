// Paying an open payment: the asset to pay with, the countdown, the wallets (a phone's wallet app
// first on a phone, the Freighter extension, the sandbox test wallet) and the details to pay by hand.
import { useState } from "preact/hooks";
import { Button, Notice, Select } from "../components/ui.tsx";
import type { AssetQuote, CheckoutView } from "./api.ts";
import { Countdown } from "./countdown.tsx";
import { assetKey, assetLabel, money } from "./format.ts";
import { PriceList } from "./price-list.tsx";
import { payWithBrowserWallet, payWithSandboxWallet } from "./pay-flows.ts";
import { OpenInWallet, PaymentDetails, usePhoneScreen } from "./payment-details.tsx";

/** What the page last said about the payment attempt under way. */
export interface PayNotice {
  text: string;
  error: boolean;
}

type Run = (action: (say: (text: string) => void) => Promise<void>) => Promise<void>;

export function PaySection(props: { view: CheckoutView; quotes: AssetQuote[]; now: number; busy: boolean; notice: PayNotice | null; run: Run }) {
  const { view: v, busy, notice, run } = props;
  const [payAsset, setPayAsset] = useState<string | null>(null);
  const phone = usePhoneScreen();
  const assets = v.allowedAssets;
  const current = assets.find((a) => assetKey(a) === payAsset) ?? v.settlementAsset ?? assets[0]!;
  const converts = v.settlementAsset && assetKey(current) !== assetKey(v.settlementAsset);
  return (
    <section class="pay">
      {v.expiresAt && <Countdown expiresAt={v.expiresAt} now={props.now} />}
      {assets.length > 1 && <PriceList quotes={props.quotes} settlementAsset={v.settlementAsset} />}
      {assets.length > 1 && (
        <Select
          label="Pay with"
          value={assetKey(current)}
          options={assets.map((a): [string, string] => [assetKey(a), assetLabel(a)])}
          onChange={setPayAsset}
          disabled={busy}
        />
      )}
      {converts && (
        <p class="muted">{`Paying in ${assetLabel(current)}: the network converts it to ${money(v.amount!, v.settlementAsset)}. Your wallet shows the quoted maximum before you sign.`}</p>
      )}
      {phone && v.instructions && <OpenInWallet uri={v.instructions.sep7Uri} primary />}
      {/* On a phone the wallet app comes first; the browser extension is the laptop's way. */}
      <Button variant={phone ? "plain" : "primary"} class={phone ? "secondary" : ""} disabled={busy} onClick={() => void run((say) => payWithBrowserWallet(v, current, say))}>
        Pay with Freighter
      </Button>
      {v.sandbox && (
        <Button class="secondary" disabled={busy} onClick={() => void run((say) => payWithSandboxWallet(v, say))}>
          Pay with a test wallet
        </Button>
      )}
      {notice && <Notice kind={notice.error ? "error" : "ok"}>{notice.text}</Notice>}
      {v.instructions && <PaymentDetails view={v} withWalletLink={!phone} />}
    </section>
  );
}
