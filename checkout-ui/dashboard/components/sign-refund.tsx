// Signing a refund's transaction with the settlement wallet's key, which the service never holds:
// in Freighter (the browser extension, which must hold that very account), on a phone (SEP-7 QR
// code: the wallet signs and sends it, and the ledger watch recognizes it), or anywhere else (copy
// the transaction, paste it back signed).
import { useMutation, useQuery } from "@urql/preact";
import { useState } from "preact/hooks";
import { QrCode } from "../../components/qr.tsx";
import { Button, CopyButton, Notice, TextArea } from "../../components/ui.tsx";
import { connectFreighter } from "../../src/wallet.ts";
import { shortAddress } from "../../src/format.ts";
import { errorText, graphql } from "../graphql.ts";

const REFUND_TRANSACTION = graphql(`
  query RefundTransaction($id: ID!) {
    refund(id: $id) { id status transaction { xdr sep7Uri claimableBalance } }
  }
`);

export const SUBMIT_REFUND = graphql(`
  mutation SubmitRefund($id: ID!, $signedTransactionXdr: String!) {
    submitRefund(id: $id, signedTransactionXdr: $signedTransactionXdr) { id status txHash failureReason completedAt updatedAt }
  }
`);

export function SignRefund(props: { refund: { id: string; sourceAddress: string; networkPassphrase: string } }) {
  const { refund } = props;
  // Built on the server with the wallet's current sequence each time it is asked: never from the cache.
  const [prepared, rebuild] = useQuery({ query: REFUND_TRANSACTION, variables: { id: refund.id }, requestPolicy: "network-only" });
  const [submitting, submit] = useMutation(SUBMIT_REFUND);
  const [walletError, setWalletError] = useState<string | null>(null);
  const [asking, setAsking] = useState(false);
  const [pasted, setPasted] = useState("");
  // The network's refusal is said beside the way it was sent.
  const [way, setWay] = useState<"freighter" | "pasted">("freighter");
  const submitError = errorText(submitting.error);

  /** Sends it; a refusal leaves the refund awaiting a signature, and the transaction is prepared again (a new sequence: after any mutation, graphql.ts). */
  async function send(signedTransactionXdr: string, how: "freighter" | "pasted") {
    setWay(how);
    await submit({ id: refund.id, signedTransactionXdr });
  }
  const transaction = prepared.data?.refund.transaction;

  async function signWithFreighter() {
    if (!transaction) return;
    setWalletError(null);
    setAsking(true);
    try {
      const wallet = await connectFreighter();
      if (wallet.address !== refund.sourceAddress) {
        setWalletError(
          `Freighter holds the account ${shortAddress(wallet.address)}, not the settlement wallet ${shortAddress(refund.sourceAddress)} that sends this refund. Switch to that account in Freighter and try again.`,
        );
        return;
      }
      const signed = await wallet.sign(transaction.xdr, refund.networkPassphrase);
      await send(signed, "freighter");
    } catch (error) {
      setWalletError(error instanceof Error ? error.message : String(error));
    } finally {
      setAsking(false);
    }
  }

  return (
    <section class="panel" aria-labelledby="sign-title">
      <h2 id="sign-title">Sign and send</h2>
      <p>
        Sign this refund with the settlement wallet <code>{refund.sourceAddress}</code>. The service never holds its key.
      </p>
      {prepared.fetching && !transaction && <p class="muted">Preparing the transaction…</p>}
      <Notice>{errorText(prepared.error)}</Notice>
      {transaction && (
        <>
          {transaction.claimableBalance && (
            <p>The destination cannot hold this asset yet (no trustline): the refund is sent as a claimable balance, which the payer claims in their wallet.</p>
          )}
          <p class="muted">
            The transaction is valid for 30 minutes.{" "}
            <Button onClick={() => rebuild({ requestPolicy: "network-only" })}>Prepare it again</Button>
          </p>
          <h3>In this browser</h3>
          <Button variant="primary" disabled={asking || submitting.fetching} onClick={() => void signWithFreighter()}>
            Sign with Freighter
          </Button>
          <Notice>{walletError ?? (way === "freighter" ? submitError : null)}</Notice>
          <h3>On a phone</h3>
          <p class="muted">Scan it with a Stellar wallet that holds the settlement wallet's key; the wallet sends it, and this page updates when the ledger has it.</p>
          <QrCode value={transaction.sep7Uri} label="QR code of the refund transaction for a phone wallet" />
          <p>
            <a href={transaction.sep7Uri}>Open in a wallet app</a>
          </p>
          <h3>Anywhere else</h3>
          <form
            onSubmit={async (e) => {
              e.preventDefault();
              await send(pasted.trim(), "pasted");
            }}
          >
            <TextArea label="Transaction to sign" readOnly value={transaction.xdr} />
            <CopyButton value={transaction.xdr} label="the transaction" />
            <TextArea label="Signed transaction" required value={pasted} hint="Paste the transaction envelope (XDR) after signing it." onInput={(e) => setPasted(e.currentTarget.value)} />
            <Notice>{way === "pasted" ? submitError : null}</Notice>
            <Button type="submit" disabled={submitting.fetching}>
              Send the signed transaction
            </Button>
          </form>
        </>
      )}
    </section>
  );
}
