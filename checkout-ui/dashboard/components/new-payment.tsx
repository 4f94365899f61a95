// "New payment" on the Payments screen: an amount in one of the enabled assets, or a price in a
// pricing currency the organization has a rate for (converted by the server, as the API does), a
// description and a customer. The new payment's checkout link, to copy or to show as a QR code, is
// there at once; the list below gets the payment live, and so does this panel: it says when the
// payment is paid (or expires) rather than "ready to be paid" ever after.
import { useMutation, useQuery } from "@urql/preact";
import { useState } from "preact/hooks";
import { Link } from "wouter-preact";
import { QrCode } from "../../components/qr.tsx";
import { Button, CopyButton, Field, Money, Notice, Select } from "../../components/ui.tsx";
import { formErrors, graphql } from "../graphql.ts";
import { usePaymentEvents } from "../payment-events.ts";
import { CustomerPicker, type PickedCustomer } from "./customer-picker.tsx";

const TERMS = graphql(`
  query NewPaymentTerms {
    organization { id settlementAddress enabledAssets { assetCode issuerAddress } rates { currency asset { assetCode issuerAddress } } }
  }
`);
const CREATE = graphql(`
  mutation NewPayment($input: CreatePaymentInput!, $idempotencyKey: String) {
    createPayment(input: $input, idempotencyKey: $idempotencyKey) {
      id checkoutUrl amount pricingCurrency pricingAmount description
      settlementAsset { assetCode issuerAddress }
    }
  }
`);

const FIELDS = ["amount", "settlementAsset", "pricingCurrency", "pricingAmount", "description", "customerId"] as const;

type Created = { id: string; checkoutUrl: string; amount: string; pricingCurrency: string | null; pricingAmount: string | null; settlementAsset: { assetCode: string } };

export function NewPayment(props: { onClose: () => void }) {
  const [terms] = useQuery({ query: TERMS });
  const [created, setCreated] = useState<Created | null>(null);
  if (created) return <CreatedPayment payment={created} onAnother={() => setCreated(null)} onClose={props.onClose} />;
  const org = terms.data?.organization;
  if (!org) return <p>Loading…</p>;
  return <NewPaymentForm assets={org.enabledAssets} currencies={[...new Set(org.rates.map((r) => r.currency))]} onCreated={setCreated} onCancel={props.onClose} />;
}

/** 128 random bits as hex (getRandomValues: randomUUID is missing on a plain-http address other than localhost). */
const newIdempotencyKey = () => Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");

type AssetRef = { assetCode: string; issuerAddress: string | null };
const assetValue = (a: AssetRef) => (a.issuerAddress ? `${a.assetCode}:${a.issuerAddress}` : a.assetCode);

function NewPaymentForm(props: { assets: AssetRef[]; currencies: string[]; onCreated: (payment: Created) => void; onCancel: () => void }) {
  const [priced, setPriced] = useState(false);
  const [amount, setAmount] = useState("");
  const [asset, setAsset] = useState(assetValue(props.assets[0]!));
  const [currency, setCurrency] = useState(props.currencies[0] ?? "");
  const [price, setPrice] = useState("");
  const [description, setDescription] = useState("");
  const [customer, setCustomer] = useState<PickedCustomer | null>(null);
  // A double click or a retry after a lost answer creates one payment; a refused body is final for
  // its key (the same key with another body is a conflict), so the corrected form sends a new one.
  const [idempotencyKey, setIdempotencyKey] = useState(newIdempotencyKey);
  const [result, create] = useMutation(CREATE);
  const errors = formErrors(result.error, FIELDS);
  const chosen = props.assets.find((a) => assetValue(a) === asset) ?? props.assets[0]!;
  const shortAsset = (a: AssetRef) => (a.issuerAddress ? `${a.assetCode} (${a.issuerAddress.slice(0, 4)}…${a.issuerAddress.slice(-4)})` : a.assetCode);
  return (
    <form
      class="panel"
      aria-labelledby="new-payment-title"
      onSubmit={async (e) => {
        e.preventDefault();
        const common = { description: description.trim() || null, customerId: customer?.id ?? null };
        const settlementAsset = { assetCode: chosen.assetCode, issuerAddress: chosen.issuerAddress };
        const input = priced
          ? { ...common, pricingCurrency: currency, pricingAmount: price.trim(), settlementAsset }
          : { ...common, amount: amount.trim(), settlementAsset };
        const answer = await create({ input, idempotencyKey });
        if (answer.data) props.onCreated(answer.data.createPayment);
        else if (answer.error && !answer.error.networkError) setIdempotencyKey(newIdempotencyKey());
      }}
    >
      <h2 id="new-payment-title">New payment</h2>
      {props.currencies.length > 0 && (
        <fieldset class="amount-choice">
          <legend class="visually-hidden">Charge</legend>
          <label>
            <input type="radio" name="charge" checked={!priced} onChange={() => setPriced(false)} /> An amount in {chosen.assetCode}
          </label>
          <label>
            <input type="radio" name="charge" checked={priced} onChange={() => setPriced(true)} /> A price in {props.currencies.join(" or ")}
          </label>
        </fieldset>
      )}
      {props.assets.length > 1 && (
        <Select label="Settles in" value={asset} options={props.assets.map((a) => [assetValue(a), shortAsset(a)])} onChange={setAsset} />
      )}
      {priced ? (
        <>
          {props.currencies.length > 1 && <Select label="Pricing currency" value={currency} options={props.currencies.map((c) => [c, c])} onChange={setCurrency} />}
          <Field
            label={`Price (${currency})`}
            inputMode="decimal"
            required
            placeholder="25.00"
            value={price}
            hint={`Converted to ${chosen.assetCode} at your rate when the payment is created.`}
            error={errors.of("pricingAmount") ?? errors.of("pricingCurrency")}
            onInput={(e) => setPrice(e.currentTarget.value)}
          />
        </>
      ) : (
        <Field
          label={`Amount (${chosen.assetCode})`}
          inputMode="decimal"
          required
          placeholder="10.00"
          value={amount}
          error={errors.of("amount") ?? errors.of("settlementAsset")}
          onInput={(e) => setAmount(e.currentTarget.value)}
        />
      )}
      <Field
        label="Payment description"
        hint="The payer sees it on the checkout."
        maxLength={500}
        value={description}
        error={errors.of("description")}
        onInput={(e) => setDescription(e.currentTarget.value)}
      />
      <CustomerPicker value={customer} onChange={setCustomer} error={errors.of("customerId")} />
      <Notice>{errors.other}</Notice>
      <div class="actions">
        <Button type="submit" variant="primary" disabled={result.fetching}>
          Create payment
        </Button>
        <Button onClick={props.onCancel}>Cancel</Button>
      </div>
    </form>
  );
}

/** The created payment's link, to copy, open or scan; then another, or done. */
function CreatedPayment(props: { payment: Created; onAnother: () => void; onClose: () => void }) {
  const p = props.payment;
  // Its status as the payment events tell it (null: still pending); completed, expired or failed is final.
  const [status, setStatus] = useState<string | null>(null);
  usePaymentEvents((payment) => payment.id === p.id && payment.status !== "pending" && setStatus(payment.status), status !== null);
  const amount = (
    <>
      <Money amount={p.amount} asset={p.settlementAsset} />
      {p.pricingCurrency && ` (${p.pricingAmount} ${p.pricingCurrency})`}
    </>
  );
  return (
    <section class="panel" aria-labelledby="created-payment-title">
      <h2 id="created-payment-title">{status === "completed" ? "Payment paid" : "Payment created"}</h2>
      {status === null ? (
        <Notice kind="ok">{amount} is ready to be paid. Send the payer this link, or let them scan the code.</Notice>
      ) : status === "completed" ? (
        <Notice kind="ok">Paid: {amount} has arrived.</Notice>
      ) : (
        <Notice>{status === "expired" ? "This payment expired before it was paid." : "This payment failed."} Create a new one to be paid.</Notice>
      )}
      <div class="created-payment">
        <div class="link">
          <p>
            <strong>Checkout link</strong>
            <br />
            <a href={p.checkoutUrl} target="_blank" rel="noreferrer">
              {p.checkoutUrl}
            </a>
          </p>
          <p class="actions">
            <CopyButton value={p.checkoutUrl} label="checkout link" />
            <Link href={`/payments/${p.id}`}>Open payment {p.id}</Link>
          </p>
        </div>
        <QrCode value={p.checkoutUrl} label={`QR code of the checkout link ${p.checkoutUrl}`} />
      </div>
      <div class="actions">
        <Button variant="primary" onClick={props.onAnother}>
          New payment
        </Button>
        <Button onClick={props.onClose}>Done</Button>
      </div>
    </section>
  );
}
