// The price in each allowed asset, before the payer chooses one: the settlement amount exactly,
// the others as the ledger quoted them on load ("≈": the rate moves; the wallet shows the maximum).
import type { AssetQuote, AssetRef } from "./api.ts";
import { assetKey, money } from "./format.ts";

export function PriceList(props: { quotes: AssetQuote[]; settlementAsset: AssetRef | null }) {
  if (props.quotes.length < 2) return null;
  const exact = (q: AssetQuote) => props.settlementAsset !== null && assetKey(q.asset) === assetKey(props.settlementAsset);
  return (
    <div class="prices">
      <p class="prices-title" id="prices-title">
        Price in each asset
      </p>
      <ul aria-labelledby="prices-title" data-testid="quotes">
        {props.quotes.map((q) => (
          <li key={assetKey(q.asset)}>{`${exact(q) ? "" : "≈ "}${money(q.amount, q.asset)}`}</li>
        ))}
      </ul>
    </div>
  );
}
