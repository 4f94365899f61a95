// Home: totals over a chosen range (count per status, volume per asset) and volume per day.
import { useQuery } from "@urql/preact";
import { useMemo } from "preact/hooks";
import { Money, Notice, Page, Select, Status, Table } from "../../components/ui.tsx";
import { VolumeChart } from "../components/volume-chart.tsx";
import { errorText, graphql } from "../graphql.ts";
import { useUrlFilters } from "../url-filters.ts";

const TOTALS = graphql(`
  query Totals($from: DateTime!, $to: DateTime!) {
    dashboardTotals(from: $from, to: $to) {
      countsByStatus { status count }
      volume { amount asset { assetCode issuerAddress } }
      daily { day amount asset { assetCode issuerAddress } }
    }
  }
`);

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
  const [result] = useQuery({ query: TOTALS, variables: range });
  const totals = result.data?.dashboardTotals;
  return (
    <Page title="Home">
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <Select label="Range" value={days} options={RANGES} onChange={(v) => setFilter("range", v === "30" ? "" : v)} />
      </form>
      <Notice>{errorText(result.error)}</Notice>
      {totals && (
        <>
          <div class="totals">
            <Table caption="Completed volume per asset" head={["Asset", "Completed volume"]} rows={totals.volume.length} empty="No completed payments in this range.">
              {totals.volume.map((v) => (
                <tr key={`${v.asset.assetCode}:${v.asset.issuerAddress ?? ""}`}>
                  <td>{v.asset.assetCode}</td>
                  <td>
                    <Money amount={v.amount} asset={v.asset} />
                  </td>
                </tr>
              ))}
            </Table>
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
