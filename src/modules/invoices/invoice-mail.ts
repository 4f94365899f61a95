// The mail that sends an invoice to its customer: who bills, what for, how much, by when, and the
// link to the hosted invoice page where it is paid.
import { formatStroops } from "../../shared/money.ts";
import type { OutgoingMail } from "../mail/mail.service.ts";
import { type InvoiceWithDetails, hostedInvoiceUrl } from "./invoices.view.ts";

/** `invoice`: an open one (it has its payment, so its settlement asset). */
export function invoiceMail(invoice: InvoiceWithDetails, input: { merchantName: string; recipient: string; publicUrl: string }): OutgoingMail {
  const asset = invoice.payment?.settlementAssetCode ?? "XLM";
  const money = (stroops: bigint) => `${formatStroops(stroops)} ${asset}`;
  const due = invoice.dueAt.toISOString().slice(0, 10);
  const lines = [
    `${input.merchantName} sent you invoice ${invoice.invoiceNumber}.`,
    "",
    `Amount due: ${money(invoice.amount)}`,
    `Due date: ${due}`,
  ];
  if (invoice.description) lines.push(`Description: ${invoice.description}`);
  if (invoice.items.length > 0) {
    lines.push("", "Items:");
    for (const item of invoice.items) {
      lines.push(`- ${item.description}: ${item.quantity} x ${money(item.unitAmount)} = ${money(BigInt(item.quantity) * item.unitAmount)}`);
    }
  }
  lines.push("", `View and pay the invoice: ${hostedInvoiceUrl(input.publicUrl, invoice.id)}`, "");
  return {
    kind: "invoice",
    resourceId: invoice.id,
    recipient: input.recipient,
    subject: `Invoice ${invoice.invoiceNumber} from ${input.merchantName}: ${money(invoice.amount)} due ${due}`,
    text: lines.join("\n"),
    // From the merchant, as the customer knows them (at the service's address).
    senderName: input.merchantName,
  };
}
