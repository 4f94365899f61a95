// Home's chart spans the chosen range with every day on it (#27): the days it draws.
import { expect, it } from "vitest";
import { daysOf } from "../checkout-ui/dashboard/range-days.ts";

it("gives every UTC day of the range, the last day before its end included, days without payments too", () => {
  const range = { from: "2026-10-29T00:00:00.000Z", to: "2026-11-28T00:00:00.000Z" };
  const days = daysOf(range);
  expect(days).toHaveLength(30);
  expect(days[0]).toBe("2026-10-29");
  expect(days.at(-1)).toBe("2026-11-27");
  // Across the end of a month, one entry a day, in order.
  expect(days.slice(2, 5)).toEqual(["2026-10-31", "2026-11-01", "2026-11-02"]);
  expect(daysOf({ from: "2026-11-27T00:00:00.000Z", to: "2026-11-28T00:00:00.000Z" })).toEqual(["2026-11-27"]);
});
