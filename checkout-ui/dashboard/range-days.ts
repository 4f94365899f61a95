// The days of a date range as the dashboard draws them.
const DAY_MS = 86_400_000;

/** Every UTC day from `from` (inclusive) to `to` (exclusive), as YYYY-MM-DD: days without payments are drawn too, at zero. */
export function daysOf(range: { from: string; to: string }): string[] {
  const days: string[] = [];
  for (let t = Date.parse(range.from); t < Date.parse(range.to); t += DAY_MS) days.push(new Date(t).toISOString().slice(0, 10));
  return days;
}
