// What is being paid: merchant, invoice number, description, amount, invoice lines.
import type { CheckoutView } from "./api.ts";
import { money } from "./format.ts";

export function CheckoutHeader({ view: v }: { view: CheckoutView }) {
  return (
    <header>
      <p class="merchant">
        {v.merchantName || "Merchant"}
        {v.sandbox && <span class="badge">Sandbox</span>}
      </p>
      {v.invoice && <p class="muted">{`Invoice ${v.invoice.number} · due ${new Date(v.invoice.dueAt).toLocaleDateString()}`}</p>}
      {v.description && <h1 class="description">{v.description}</h1>}
      {v.amount && (
        <p class="amount" data-testid="amount">
          {money(v.amount, v.settlementAsset)}
        </p>
      )}
    </header>
  );
}

export function InvoiceLines({ view: v }: { view: CheckoutView }) {
  if (!v.invoice || v.invoice.items.length === 0) return null;
  return (
    <table class="lines">
      <caption class="visually-hidden">Invoice items</caption>
      <thead>
        <tr>
          <th scope="col">Item</th>
          <th scope="col">Qty</th>
          <th scope="col">Amount</th>
        </tr>
      </thead>
      <tbody>
        {v.invoice.items.map((item, i) => (
          <tr key={i}>
            <td>{item.description}</td>
            <td>{item.quantity}</td>
            <td>{money(item.amount, v.settlementAsset)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
