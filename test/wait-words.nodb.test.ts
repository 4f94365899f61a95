// A wait in words (#27 item 5: "in 15 minutes", not seconds), as the server's messages and the
// dashboard's delivery log say it: rounded up, never sooner than it is.
import { describe, expect, it } from "vitest";
import { untilInWords, waitInWords } from "../src/shared/wait-words.ts";

describe("a wait in words", () => {
  it.each([
    [0.2, "1 second"],
    [1, "1 second"],
    [59, "59 seconds"],
    [60, "1 minute"],
    [61, "2 minutes"],
    [893, "15 minutes"],
    [89 * 60, "89 minutes"],
    [90 * 60, "2 hours"],
    [3 * 3600 + 1, "4 hours"],
    [36 * 3600, "2 days"],
  ])("%s seconds is %s", (seconds, words) => {
    expect(waitInWords(seconds)).toBe(words);
  });

  it("says how long until a time, or now once it is due", () => {
    const now = new Date("2026-11-27T12:00:00Z");
    expect(untilInWords(new Date("2026-11-27T12:05:00Z"), now)).toBe("in 5 minutes");
    expect(untilInWords(new Date("2026-11-27T14:00:00Z"), now)).toBe("in 2 hours");
    expect(untilInWords(now, now)).toBe("now");
    expect(untilInWords(new Date("2026-11-27T11:00:00Z"), now)).toBe("now");
  });
});
