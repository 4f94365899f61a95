// The payer's side of a refund (/r/<re_ id>): where the money should go when the merchant could not
// tell (an exchange's account that needs the payer's own memo, or several payers), then the refund's
// status until the money is there, with the ledger transaction (on a public explorer where one shows
// the network). It says who is refunding and on which network. An account without a trustline for
// the asset gets a claimable balance, and the page says how to claim it.
import { useEffect, useState } from "preact/hooks";
import { Button, CopyButton, Field, Notice, Select } from "../components/ui.tsx";
import { ApiError } from "../src/api.ts";
import { money } from "../src/format.ts";
import { type RefundClaim, claimRefund, isFinal, loadRefundClaim, watchRefundClaim } from "./api.ts";
import "./style.css";

/** The refund, loaded once (an unknown id is said so), then live until it has ended. */
function useRefundClaim(id: string) {
  const [claim, setClaim] = useState<RefundClaim | null>(null);
  const [loadError, setLoadError] = useState<"missing" | "unavailable" | null>(null);
  useEffect(() => {
    let stop: (() => void) | undefined;
    let stopped = false;
    const show = (next: RefundClaim) => {
      setClaim(next);
      // Nothing more happens to a refund that has ended.
      if (isFinal(next.status)) stop?.();
    };
    loadRefundClaim(id).then(
      (first) => {
        if (stopped) return;
        show(first);
        if (!isFinal(first.status)) stop = watchRefundClaim(id, show);
      },
      (error) => setLoadError(error instanceof ApiError && error.code === "NOT_FOUND" ? "missing" : "unavailable"),
    );
    return () => {
      stopped = true;
      stop?.();
    };
  }, [id]);
  return { claim, setClaim, loadError };
}

/** A refusal of the destination, said beside the field it is about (or above the button). */
interface DestinationProblem {
  field: "address" | "memo" | null;
  text: string;
}

/** The server's refusal of a destination, as a payer should read it, and where. */
function destinationProblem(error: unknown): DestinationProblem {
  const message = error instanceof Error ? error.message : String(error);
  if (/address is not an account on the ledger/.test(message)) {
    return { field: "address", text: "No Stellar account exists at this address on this network. Check the address: an account exists once it holds some XLM." };
  }
  if (/memo is required/.test(message)) {
    return { field: "memo", text: "This account asks for a memo on every payment it receives (exchanges do). Enter the memo your exchange gave you." };
  }
  if (error instanceof ApiError && error.code === "CONFLICT") return { field: null, text: "Someone already said where this refund goes. The status below is current." };
  // A refused field comes in people's words after its own name ("Destination address: a Stellar
  // account address: 56 characters starting with G"): beside the field, the name goes.
  const field = error instanceof ApiError ? error.field : null;
  if (field) {
    // (a field refused in words of its own may have no name before them: then it is said whole)
    const named = message.indexOf(": ");
    const words = named > 0 ? message.slice(named + 2) : message;
    return { field: field.endsWith("address") ? "address" : field.includes("memo") ? "memo" : null, text: words.charAt(0).toUpperCase() + words.slice(1) };
  }
  return { field: null, text: message };
}

const MEMO_TYPES: [string, string][] = [
  ["text", "Text"],
  ["id", "Number (ID)"],
  ["hash", "Hash (64 hex characters)"],
];

function ClaimForm(props: { refund: RefundClaim; onClaimed: (claim: RefundClaim) => void; onRefused: () => void }) {
  const [address, setAddress] = useState("");
  const [memo, setMemo] = useState("");
  const [memoType, setMemoType] = useState("text");
  const [problem, setProblem] = useState<DestinationProblem | null>(null);
  const problemOf = (field: DestinationProblem["field"]) => (problem?.field === field ? problem.text : null);
  const [busy, setBusy] = useState(false);
  return (
    <form
      aria-label="Where should the money go?"
      onSubmit={async (e) => {
        e.preventDefault();
        setProblem(null);
        setBusy(true);
        try {
          const trimmedMemo = memo.trim();
          props.onClaimed(
            await claimRefund(props.refund.id, {
              address: address.trim(),
              // Left out without a memo (not null): the server takes absent fields as "none".
              ...(trimmedMemo && { memo: trimmedMemo, memoType: memoType as "text" | "id" | "hash" }),
            }),
          );
        } catch (error) {
          setProblem(destinationProblem(error));
          if (error instanceof ApiError && error.code === "CONFLICT") props.onRefused();
        } finally {
          setBusy(false);
        }
      }}
    >
      <h2>Where should the money go?</h2>
      <p>Give the Stellar account to receive the refund. If it is an exchange's account, give the memo (or tag) the exchange shows for your deposits too.</p>
      <Field
        label="Stellar account"
        required
        autocomplete="off"
        spellcheck={false}
        placeholder="G…"
        value={address}
        error={problemOf("address")}
        onInput={(e) => setAddress(e.currentTarget.value)}
      />
      <Field label="Memo (if your exchange or wallet gave you one)" autocomplete="off" value={memo} error={problemOf("memo")} onInput={(e) => setMemo(e.currentTarget.value)} />
      {memo.trim() && <Select label="Memo type" value={memoType} options={MEMO_TYPES} onChange={setMemoType} />}
      <Notice>{problemOf(null)}</Notice>
      <Button type="submit" variant="primary" disabled={busy}>
        Send my refund here
      </Button>
    </form>
  );
}

const STATUS_TEXT: Record<RefundClaim["status"], [string, string]> = {
  pending_claim: ["Waiting for your account", "Tell us where to send the money."],
  requires_signature: ["On its way", "The merchant is signing the refund in their wallet. This page updates by itself when the money is sent."],
  submitted: ["On its way", "The refund has been sent to the Stellar network. This page updates by itself when the money is there."],
  succeeded: ["Refunded", "The money is there."],
  failed: ["Refund failed", "The Stellar network did not accept the refund. Please contact the merchant."],
  canceled: ["Refund canceled", "The merchant canceled this refund. Please contact them if you expected the money."],
};

const NETWORK_TEXT: Record<RefundClaim["network"], string> = {
  public: "Stellar public network",
  testnet: "Stellar test network: test money, no real value",
  simulated: "A simulated Stellar network for testing: test money, no real value",
  other: "A private Stellar network",
};

/** How to take a claimable balance: the money waits on the ledger for this account to claim it. */
function ClaimableBalanceHelp(props: { refund: RefundClaim }) {
  const asset = props.refund.asset;
  const sent = props.refund.status === "succeeded";
  return (
    <section class="notice" aria-labelledby="claimable-title">
      <h2 id="claimable-title">{`This account cannot receive ${asset.assetCode} yet`}</h2>
      <p>
        {`It has no trustline for ${asset.assetCode}`}
        {asset.issuerAddress && (
          <>
            {" "}
            (issued by <code>{asset.issuerAddress}</code>)
          </>
        )}
        {`, so the refund ${sent ? "was" : "is"} sent as a claimable balance: the money waits on the ledger for this account.`}
      </p>
      <p>{`To claim it, open your wallet (Freighter, Lobstr, xBull and others list "claimable balances"), add ${asset.assetCode} when asked, and claim it.`}</p>
    </section>
  );
}

export function RefundClaimPage(props: { id: string; container: HTMLElement }) {
  const { claim, setClaim, loadError } = useRefundClaim(props.id);
  useEffect(() => props.container.setAttribute("aria-busy", String(!claim && !loadError)), [claim, loadError]);
  useEffect(() => {
    if (claim) document.title = `${STATUS_TEXT[claim.status][0]} · Your refund`;
  }, [claim?.status]);

  if (loadError) {
    return (
      <>
        <h1>{loadError === "missing" ? "Refund not found" : "Refund unavailable"}</h1>
        <p>{loadError === "missing" ? "This refund page does not exist. Check the link you were given." : "Please try again in a moment."}</p>
      </>
    );
  }
  if (!claim) return <p class="muted">Loading your refund…</p>;
  const [title, text] = STATUS_TEXT[claim.status];
  return (
    <>
      <header>
        <p class="merchant">{`Your refund from ${claim.merchantName || "the merchant"}`}</p>
        <h1 class="amount" data-testid="amount">
          {money(claim.amount, claim.asset)}
        </h1>
      </header>
      <section class={`result refund-${claim.status}`} aria-labelledby="status-title">
        <h2 id="status-title">{title}</h2>
        <p role="status">{text}</p>
      </section>
      {claim.status === "pending_claim" ? (
        <ClaimForm refund={claim} onClaimed={setClaim} onRefused={() => void loadRefundClaim(claim.id).then(setClaim, () => undefined)} />
      ) : (
        claim.destinationAddress && (
          <dl>
            <div class="copy-row">
              <dt>To the account</dt>
              <dd>
                <code>{claim.destinationAddress}</code>
              </dd>
            </div>
            {claim.destinationMemo && (
              <div class="copy-row">
                <dt>With the memo</dt>
                <dd>
                  <code>{claim.destinationMemo}</code>
                </dd>
              </div>
            )}
            {claim.txHash && (
              <div class="copy-row">
                <dt>Ledger transaction</dt>
                <dd>
                  {claim.explorerUrl ? (
                    <a href={claim.explorerUrl} target="_blank" rel="noopener noreferrer">
                      <code data-testid="tx-hash">{claim.txHash}</code>
                    </a>
                  ) : (
                    <code data-testid="tx-hash">{claim.txHash}</code>
                  )}
                  <CopyButton value={claim.txHash} label="the transaction hash" />
                </dd>
              </div>
            )}
            {claim.completedAt && claim.status === "succeeded" && (
              <div class="copy-row">
                <dt>Sent</dt>
                <dd>
                  <time dateTime={claim.completedAt}>{new Date(claim.completedAt).toLocaleString()}</time>
                </dd>
              </div>
            )}
          </dl>
        )
      )}
      {claim.claimableBalance && claim.status !== "canceled" && claim.status !== "failed" && <ClaimableBalanceHelp refund={claim} />}
      <footer class="muted">{NETWORK_TEXT[claim.network]}</footer>
    </>
  );
}
