// The two ways this page pays: a browser wallet (the server prepares, the wallet signs, the page
// submits) and, in sandbox, a throwaway test wallet. `say` reports each step to the payer.
import { type AssetRef, type CheckoutView, payWithTestWallet, prepareTransaction, submitTransaction } from "./api.ts";
import { assetKey, describeFailure, money } from "./format.ts";
import { connectFreighter } from "./wallet.ts";

type Say = (text: string) => void;

export async function payWithBrowserWallet(v: CheckoutView, asset: AssetRef, say: Say): Promise<void> {
  say("Connecting to your wallet…");
  const wallet = await connectFreighter();
  const prepared = await prepareTransaction(v.paymentId!, wallet.address, asset);
  const quote = v.settlementAsset && assetKey(asset) !== assetKey(v.settlementAsset) ? ` You pay at most ${money(prepared.sendMax, asset)}.` : "";
  say(`Approve the payment in your wallet.${quote}`);
  const signed = await wallet.sign(prepared.xdr, prepared.networkPassphrase);
  say("Submitting to the Stellar network…");
  const submission = await submitTransaction(v.paymentId!, signed);
  if (!submission.successful) throw new Error(describeFailure(submission.resultCodes.join(" ")));
  say("Submitted. Waiting for the ledger to confirm…");
}

export async function payWithSandboxWallet(v: CheckoutView, say: Say): Promise<void> {
  say("Funding a throwaway test wallet and paying…");
  const submission = await payWithTestWallet(v.paymentId!);
  if (!submission.successful) throw new Error(describeFailure(submission.resultCodes.join(" ")));
  say("Test payment submitted. Waiting for the ledger to confirm…");
}
