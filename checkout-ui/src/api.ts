// The page's only contact with the server: GraphQL over fetch (/graphql) and the live checkout
// subscription over graphql-sse (/graphql/stream), reconnecting until closed. Same origin, no API key.
// The refund claim page (../claim/) uses the same two.

export interface AssetRef {
  assetCode: string;
  issuerAddress: string | null;
}

export interface AssetQuote {
  asset: AssetRef;
  amount: string;
}

export type CheckoutState = "open" | "paid" | "failed" | "expired" | "inactive" | "void" | "draft";

export interface CheckoutView {
  id: string;
  kind: "payment" | "checkout_session" | "invoice" | "payment_link";
  state: CheckoutState;
  paymentId: string | null;
  merchantName: string;
  description: string | null;
  amount: string | null;
  amountReceived: string | null;
  expiresAt: string | null;
  sandbox: boolean;
  network: string;
  successUrl: string | null;
  cancelUrl: string | null;
  failureReason: string | null;
  settlementAsset: AssetRef | null;
  allowedAssets: AssetRef[];
  instructions: {
    destination: string;
    muxedDestination: string;
    memoType: string;
    memo: string;
    networkPassphrase: string;
    sep7Uri: string;
  } | null;
  receipt: { txHash: string | null; payerAddress: string | null; confirmedAt: string | null; explorerUrl: string | null; paidAsset: AssetRef | null } | null;
  /** the price in each allowed asset when the page loaded (the first load asks for it, live updates do not) */
  quotes?: AssetQuote[];
  invoice: {
    number: string;
    status: string;
    dueAt: string;
    items: { description: string; quantity: string; unitAmount: string; amount: string }[];
  } | null;
}

const VIEW_FIELDS = `id kind state paymentId merchantName description amount amountReceived expiresAt sandbox network
  successUrl cancelUrl failureReason
  settlementAsset { assetCode issuerAddress } allowedAssets { assetCode issuerAddress }
  instructions { destination muxedDestination memoType memo networkPassphrase sep7Uri }
  receipt { txHash payerAddress confirmedAt explorerUrl paidAsset { assetCode issuerAddress } }
  invoice { number status dueAt items { description quantity unitAmount amount } }`;

const SUBMISSION_FIELDS = "txHash successful resultCodes";

/** Every operation the page sends, word for word (the server's GraphQL bounds are tested against them). */
export const CHECKOUT_OPERATIONS = {
  // Quotes ask the ledger: once on load, not on every live update.
  load: `query ($id: ID!) { checkout(id: $id) { ${VIEW_FIELDS} quotes { asset { assetCode issuerAddress } amount } } }`,
  watch: `subscription ($id: ID!) { checkout(id: $id) { ${VIEW_FIELDS} } }`,
  prepare: `mutation ($paymentId: ID!, $payerAddress: String!, $payAsset: AssetRefInput!) {
      prepareCheckoutTransaction(paymentId: $paymentId, payerAddress: $payerAddress, payAsset: $payAsset) { xdr networkPassphrase sendMax }
    }`,
  submit: `mutation ($paymentId: ID!, $signedXdr: String!) {
      submitCheckoutTransaction(paymentId: $paymentId, signedXdr: $signedXdr) { ${SUBMISSION_FIELDS} } }`,
  payWithTestWallet: `mutation ($paymentId: ID!) { payWithTestWallet(paymentId: $paymentId) { ${SUBMISSION_FIELDS} } }`,
};

export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: string | null,
    /** the refused input field's path, e.g. "destination.address" (its words are the message) */
    readonly field: string | null = null,
  ) {
    super(message);
  }
}

interface GraphQLResult<T> {
  data?: T;
  errors?: { message: string; extensions?: { code?: string; field?: string } }[];
}

function unwrap<T>(result: GraphQLResult<T>): T {
  const error = result.errors?.[0];
  if (error) throw new ApiError(error.message, error.extensions?.code ?? null, error.extensions?.field ?? null);
  return result.data as T;
}

export async function graphql<T>(query: string, variables: Record<string, unknown>): Promise<T> {
  const response = await fetch("/graphql", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ query, variables }),
  });
  return unwrap((await response.json()) as GraphQLResult<T>);
}

export async function loadCheckout(id: string): Promise<CheckoutView> {
  return (await graphql<{ checkout: CheckoutView }>(CHECKOUT_OPERATIONS.load, { id })).checkout;
}

/**
 * Calls `onView` with the current state on every (re)connection, then with each change. The server
 * sends the current state first, so a dropped connection can never hide a final status.
 */
export function watchCheckout(id: string, onView: (view: CheckoutView) => void): () => void {
  return watchSubscription<{ checkout: CheckoutView }>(CHECKOUT_OPERATIONS.watch, { id }, (data) => onView(data.checkout));
}

/**
 * Runs a subscription over graphql-sse (/graphql/stream) and calls `onData` with each result,
 * reconnecting (with a growing pause) until the returned function is called.
 */
export function watchSubscription<T>(query: string, variables: Record<string, unknown>, onData: (data: T) => void): () => void {
  let stopped = false;
  let abort: AbortController | null = null;
  let failures = 0;

  async function connectOnce() {
    abort = new AbortController();
    const response = await fetch("/graphql/stream", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ query, variables }),
      signal: abort.signal,
    });
    if (!response.ok || !response.body) throw new Error(`stream answered ${response.status}`);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (!block.startsWith("event: next")) continue;
        const data = block
          .split("\n")
          .filter((line) => line.startsWith("data:"))
          .map((line) => line.slice(5).trimStart())
          .join("\n");
        const result = JSON.parse(data) as GraphQLResult<T>;
        if (result.data) {
          failures = 0;
          onData(result.data);
        }
      }
    }
  }

  void (async () => {
    while (!stopped) {
      try {
        await connectOnce();
      } catch {
        if (stopped) return;
        failures++;
      }
      // Back off a little on repeated failures; reconnecting sends the current state again.
      await new Promise((resolve) => setTimeout(resolve, Math.min(1000 * 2 ** failures, 15_000)));
    }
  })();

  return () => {
    stopped = true;
    abort?.abort();
  };
}

export interface PreparedTransaction {
  xdr: string;
  networkPassphrase: string;
  /** the most the payer spends, in the pay-with asset (path payments) */
  sendMax: string;
}

const assetInput = (a: AssetRef) => ({ assetCode: a.assetCode, issuerAddress: a.issuerAddress });

export async function prepareTransaction(paymentId: string, payerAddress: string, payAsset: AssetRef): Promise<PreparedTransaction> {
  const data = await graphql<{ prepareCheckoutTransaction: PreparedTransaction }>(
    CHECKOUT_OPERATIONS.prepare,
    { paymentId, payerAddress, payAsset: assetInput(payAsset) },
  );
  return data.prepareCheckoutTransaction;
}

export interface Submission {
  txHash: string;
  successful: boolean;
  /** stellar-core's result codes when the ledger refused the transaction */
  resultCodes: string[];
}


export async function submitTransaction(paymentId: string, signedXdr: string): Promise<Submission> {
  const data = await graphql<{ submitCheckoutTransaction: Submission }>(
    CHECKOUT_OPERATIONS.submit,
    { paymentId, signedXdr },
  );
  return data.submitCheckoutTransaction;
}

export async function payWithTestWallet(paymentId: string): Promise<Submission> {
  const data = await graphql<{ payWithTestWallet: Submission }>(
    CHECKOUT_OPERATIONS.payWithTestWallet,
    { paymentId },
  );
  return data.payWithTestWallet;
}
