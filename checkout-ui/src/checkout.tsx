// The checkout's state: loads the public view, keeps it live over SSE, ticks the countdown, and
// runs one payment attempt at a time. What each state looks like is in the components it renders.
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, type AssetQuote, type CheckoutView, loadCheckout, watchCheckout } from "./api.ts";
import { Announcer } from "./countdown.tsx";
import { CheckoutHeader, InvoiceLines } from "./header.tsx";
import { type PayNotice, PaySection } from "./pay-section.tsx";
import { FinalSection, PaidSection } from "./results.tsx";
import { secondsLeft } from "./format.ts";

/** The payer may pay now: open, or failed before and not yet expired (then the server gives instructions). */
export const payable = (v: CheckoutView) => Boolean(v.paymentId && (v.state === "open" || (v.state === "failed" && v.instructions)));

/** The current time, once a second: the countdown runs locally between server updates. */
function useNow(): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

export function Checkout(props: { id: string; container: HTMLElement }) {
  const [loaded, setLoaded] = useState<CheckoutView | null>(null);
  const [loadError, setLoadError] = useState<"missing" | "unavailable" | null>(null);
  const [quotes, setQuotes] = useState<AssetQuote[]>([]);
  const [notice, setNotice] = useState<PayNotice | null>(null);
  const [busy, setBusy] = useState(false);
  const current = useRef<CheckoutView | null>(null);
  const now = useNow();

  useEffect(() => {
    let stop: (() => void) | undefined;
    const show = (next: CheckoutView) => {
      // The failure section says why an attempt failed; a notice from before would repeat or contradict it.
      if (next.state !== "open" && next.state !== current.current?.state) setNotice(null);
      current.current = next;
      setLoaded(next);
    };
    loadCheckout(props.id).then(
      (first) => {
        show(first);
        setQuotes(first.quotes ?? []);
        stop = watchCheckout(props.id, show);
      },
      (error) => setLoadError(error instanceof ApiError && error.code === "NOT_FOUND" ? "missing" : "unavailable"),
    );
    return () => stop?.();
  }, [props.id]);

  // At zero the page shows the expiry without waiting for the server.
  const expired = loaded && payable(loaded) && loaded.expiresAt && secondsLeft(new Date(loaded.expiresAt), now) <= 0;
  const view = loaded && expired ? { ...loaded, state: "expired" as const, instructions: null } : loaded;

  useEffect(() => props.container.setAttribute("aria-busy", String(busy || (!view && !loadError))), [busy, view, loadError]);
  useEffect(() => {
    // An invoice's page names the invoice, so that its tab is not one more "Pay <merchant>".
    const what = view?.invoice ? `invoice ${view.invoice.number} · ${view.merchantName}` : view?.merchantName;
    if (view) document.title = `${view.state === "paid" ? "Paid" : "Pay"} ${what}`.trim();
  }, [view?.state, view?.merchantName, view?.invoice?.number]);

  const inFlight = useRef(false);
  async function run(action: (say: (text: string) => void) => Promise<void>) {
    if (inFlight.current) return;
    inFlight.current = true;
    setBusy(true);
    try {
      await action((text) => setNotice({ text, error: false }));
    } catch (error) {
      setNotice({ text: error instanceof Error ? error.message : String(error), error: true });
    } finally {
      inFlight.current = false;
      setBusy(false);
    }
  }

  if (loadError) {
    return (
      <>
        <h1>{loadError === "missing" ? "Checkout not found" : "Checkout unavailable"}</h1>
        <p>{loadError === "missing" ? "This payment page does not exist. Check the link you were given." : "Please try again in a moment."}</p>
      </>
    );
  }
  if (!view) return <p class="muted">Loading checkout…</p>;
  const pay = <PaySection view={view} quotes={quotes} now={now} busy={busy} notice={notice} run={run} />;
  return (
    <>
      <CheckoutHeader view={view} />
      <InvoiceLines view={view} />
      {view.state === "open" ? (
        view.paymentId ? (
          pay
        ) : (
          <p>This checkout is not ready for payment.</p>
        )
      ) : view.state === "paid" ? (
        <PaidSection view={view} />
      ) : payable(view) ? (
        // A failed attempt is not final until the payment expires: say why, and offer paying again.
        <div>
          <FinalSection view={view} />
          <p class="retry">You can try again.</p>
          {pay}
        </div>
      ) : (
        <FinalSection view={view} />
      )}
      {payable(view) && view.cancelUrl && (
        <p class="cancel">
          <a href={view.cancelUrl}>Cancel and return to the merchant</a>
        </p>
      )}
      <footer class="muted">Stellar {view.network === "public" ? "public network" : "test network"}</footer>
      <Announcer view={view} payable={payable(view)} now={now} />
    </>
  );
}
