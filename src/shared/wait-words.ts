// A wait as a person reads it ("15 minutes", "2 hours"), for the server's messages and the
// dashboard's screens alike, so that both say a wait the same way.

const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"}`;

/** `seconds` in words, rounded up: never sooner than it is ("try again in 15 minutes"). */
export const waitInWords = (seconds: number) =>
  seconds < 60
    ? plural(Math.max(1, Math.ceil(seconds)), "second")
    : seconds < 90 * 60
      ? plural(Math.ceil(seconds / 60), "minute")
      : seconds < 36 * 3600
        ? plural(Math.ceil(seconds / 3600), "hour")
        : plural(Math.ceil(seconds / 86_400), "day");

/** How long until `at` from `now`, in words: "in 5 minutes", or "now" once it is due. */
export const untilInWords = (at: Date, now: Date) => {
  const seconds = (at.getTime() - now.getTime()) / 1000;
  return seconds <= 0 ? "now" : `in ${waitInWords(seconds)}`;
};
