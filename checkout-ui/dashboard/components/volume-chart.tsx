// Volume over time, one line per asset, drawn by uPlot (loaded when the chart is first shown). The
// chart is a picture: the totals table beside it carries the same figures for screen readers.
import { useEffect, useRef } from "preact/hooks";
import { daysOf } from "../range-days.ts";

export interface DailyVolume {
  day: string;
  asset: { assetCode: string };
  amount: string;
}

const COLORS = ["#1d4ed8", "#b45309", "#047857", "#7c3aed", "#be123c"];

/** `range`: the chosen range, which the axis spans exactly, whatever days have payments. */
export function VolumeChart(props: { daily: DailyVolume[]; range: { from: string; to: string }; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    let chart: { destroy(): void } | null = null;
    let stopped = false;
    void Promise.all([import("uplot"), import("uplot/dist/uPlot.min.css")]).then(([{ default: UPlot }]) => {
      if (stopped) return;
      const days = daysOf(props.range);
      const assets = [...new Set(props.daily.map((d) => d.asset.assetCode))];
      const x = days.map((day) => Date.parse(day) / 1000);
      // Amounts are 7-decimal strings; a chart may draw them as floats, nothing is computed from them.
      const series = assets.map((code) => days.map((day) => Number(props.daily.find((d) => d.day === day && d.asset.assetCode === code)?.amount ?? 0)));
      chart = new UPlot(
        {
          width: Math.max(280, element.clientWidth),
          height: 220,
          // The x scale is the range itself: uPlot's own would widen a lone day to years.
          scales: { x: { time: true, range: [x[0]!, x.at(-1)!] } },
          series: [{}, ...assets.map((code, i) => ({ label: code, stroke: COLORS[i % COLORS.length], width: 2, points: { show: true } }))],
          axes: [{}, { size: 60 }],
        },
        [x, ...series],
        element,
      );
    });
    return () => {
      stopped = true;
      chart?.destroy();
    };
  }, [props.daily, props.range]);
  return <div class="chart" ref={box} role="img" aria-label={props.label} />;
}
