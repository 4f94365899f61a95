// Home: totals over a chosen range (count per status, volume per asset) and volume per day, live.
import { useQuery } from "@urql/preact";
import { useMemo } from "preact/hooks";
import { Money, Notice, Page, Select, Status, Table } from "../../components/ui.tsx";
import { SetupChecklist } from "../components/setup-checklist.tsx";
import { VolumeChart } from "../components/volume-chart.tsx";
import { can, useSession } from "../session.tsx";
import { errorText, graphql } from "../graphql.ts";
import { usePaymentEvents } from "../payment-events.ts";
import { toStroops } from "../money.ts";
import { useUrlFilters } from "../url-filters.ts";

const TOTALS = graphql(`
  query Totals($from: DateTime!, $to: DateTime!) {
    dashboardTotals(from: $from, to: $to) {
      countsByStatus { status count }
      volume { amount asset { assetCode issuerAddress } }
      inCurrencies { currency amount perAsset { amount asset { assetCode issuerAddress } } assetsWithoutRate { assetCode issuerAddress } }
      daily { day amount asset { assetCode issuerAddress } }
    }
  }
`);

type Asset = { assetCode: string; issuerAddress: string | null };

/** An amount of a pricing currency (a 7-decimal string) to the cent, as people read prices; rounded half up, exactly. */
function CurrencyAmount(props: { amount: string; currency: string }) {
  const cents = (toStroops(props.amount) + 50_000n) / 100_000n;
  return (
    <span class="money">
      {(cents / 100n).toString()}.{(cents % 100n).toString().padStart(2, "0")} {props.currency}
    </span>
  );
}

const RANGES: [string, string][] = [
  ["1", "Today"],
  ["7", "Last 7 days"],
  ["30", "Last 30 days"],
  ["90", "Last 90 days"],
];

export function Home() {
  const [{ range: asked }, setFilter] = useUrlFilters(["range"]);
  // The last 30 days unless the address asks for another of the ranges offered.
  const days = RANGES.some(([value]) => value === asked) ? asked : "30";
  // The range ends at the next midnight (UTC), so that today's payments count while the page is open.
  const range = useMemo(() => {
    const to = new Date();
    to.setUTCHours(24, 0, 0, 0);
    return { from: new Date(to.getTime() - Number(days) * 86_400_000).toISOString(), to: to.toISOString() };
  }, [days]);
  const [result, refetch] = useQuery({ query: TOTALS, variables: range });
  // A payment completing (or any other moving) changes the totals: they follow live.
  usePaymentEvents(() => refetch({ requestPolicy: "network-only" }));
  const totals = result.data?.dashboardTotals;
  const session = useSession();
  const sameAsset = (a: Asset, b: Asset) => a.assetCode === b.assetCode && a.issuerAddress === b.issuerAddress;
  return (
    <Page title="Home">
      {can.write(session.viewer.user.role) && <SetupChecklist />}
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <Select label="Range" value={days} options={RANGES} onChange={(v) => setFilter("range", v === "30" ? "" : v)} />
      </form>
      <Notice>{errorText(result.error)}</Notice>
      {totals && (
        <>
          <div class="totals">
            <div>
              <Table
                caption="Completed volume per asset"
                head={["Asset", "Completed volume", ...totals.inCurrencies.map((c) => `In ${c.currency}`)]}
                rows={totals.volume.length}
                empty="No completed payments in this range."
              >
                {totals.volume.map((v) => (
                  <tr key={`${v.asset.assetCode}:${v.asset.issuerAddress ?? ""}`}>
                    <td>{v.asset.assetCode}</td>
                    <td>
                      <Money amount={v.amount} asset={v.asset} />
                    </td>
                    {totals.inCurrencies.map((c) => {
                      const value = c.perAsset.find((p) => sameAsset(p.asset, v.asset));
                      return <td key={c.currency}>{value ? <CurrencyAmount amount={value.amount} currency={c.currency} /> : <span class="muted">No {c.currency} rate</span>}</td>;
                    })}
                  </tr>
                ))}
              </Table>
              {totals.volume.length > 0 &&
                totals.inCurrencies.map((c) => (
                  <p class="currency-totals" key={c.currency}>
                    In all, at today's {c.currency} rates: <strong><CurrencyAmount amount={c.amount} currency={c.currency} /></strong>
                    {c.assetsWithoutRate.length > 0 && (
                      <> (without {c.assetsWithoutRate.map((a) => a.assetCode).join(", ")}: no {c.currency} rate is set; add one in Settings)</>
                    )}
                  </p>
                ))}
            </div>
            <Table caption="Payments per status" head={["Status", "Payments"]} rows={totals.countsByStatus.length}>
              {totals.countsByStatus.map((c) => (
                <tr key={c.status}>
                  <td>
                    <Status value={c.status} />
                  </td>
                  <td>{c.count}</td>
                </tr>
              ))}
            </Table>
          </div>
          <h2>Completed volume per day</h2>
          {totals.daily.length ? <VolumeChart daily={totals.daily} range={range} label="Chart of completed volume per day and asset; the table above gives the totals." /> : <p class="muted">Nothing completed in this range yet.</p>}
        </>
      )}
    </Page>
  );
}
