// The time left to pay, and what screen readers hear about it. The ticking text is not a live
// region (it would be read out every second); a separate polite status says the state and the
// thresholds only: 5 minutes left, 1 minute left, then the outcome.
import type { CheckoutView } from "./api.ts";
import { countdown, secondsLeft } from "./format.ts";
import { FINAL } from "./results.tsx";

const DAY_SECONDS = 86_400;
const expiryDate = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

export function Countdown(props: { expiresAt: string; now: number }) {
  const expiresAt = new Date(props.expiresAt);
  // A day or more ahead (an invoice's payment), the date says more than a count of days and hours.
  if (secondsLeft(expiresAt, props.now) >= DAY_SECONDS) {
    return (
      <p class="countdown" data-testid="countdown">
        Expires on <time dateTime={props.expiresAt}>{expiryDate.format(expiresAt)}</time>
      </p>
    );
  }
  const left = countdown(expiresAt, props.now);
  if (!left) return null;
  return (
    <p class="countdown" data-testid="countdown">
      Expires in <time dateTime={props.expiresAt}>{left}</time>
    </p>
  );
}

/** What the status region says now: it changes only at a threshold or a new state. */
export function announcement(v: CheckoutView, payable: boolean, now: number): string {
  if (v.state === "paid") return "Paid";
  if (!payable) return FINAL[v.state]?.[0] ?? "";
  const failed = v.state === "failed" ? "Payment failed. It may be paid again until it expires. " : "";
  const seconds = v.expiresAt ? secondsLeft(new Date(v.expiresAt), now) : Infinity;
  const left = seconds <= 60 ? "1 minute left to pay." : seconds <= 300 ? "5 minutes left to pay." : "";
  return `${failed}${left}`.trim();
}

export function Announcer(props: { view: CheckoutView; payable: boolean; now: number }) {
  return (
    <p class="visually-hidden" role="status" data-testid="announcer">
      {announcement(props.view, props.payable, props.now)}
    </p>
  );
}
