// The notices a dashboard user chooses to get by mail (Account → Email notices): money arrived (a
// payment completed), an invoice was paid, a webhook endpoint has been failing for an hour. Each is
// queued in the transaction of the change it tells of, to the organization's users who chose it,
// from the merchant's display name. Security notices are not here: they always go to the owners.
import type { Invoice, Payment, User, WebhookEndpoint } from "../../generated/sqlite/client.ts";
import type { Deps } from "../../context.ts";
import type { Db } from "../../db/client.ts";
import { formatStroops } from "../../shared/money.ts";
import { merchantName } from "../organizations/organizations.store.ts";
import { roleAllows, type Role } from "../users/roles.ts";
import { usersOfOrganizations } from "../users/users.store.ts";
import type { NoticeKind, OutgoingMail } from "./mail.service.ts";

const CHOICE: Record<NoticeKind, keyof Pick<User, "notifyPaymentReceived" | "notifyInvoicePaid" | "notifyWebhookFailing">> = {
  payment_received: "notifyPaymentReceived",
  invoice_paid: "notifyInvoicePaid",
  webhook_failing: "notifyWebhookFailing",
};

/** What a notice says it is, in the account settings and at the foot of each notice. */
export const NOTICE_NAMES: Record<NoticeKind, string> = {
  payment_received: "Payment received",
  invoice_paid: "Invoice paid",
  webhook_failing: "Webhook endpoint failing",
};

type Key = { organizationId: string; environment: string };

/** Who may get the notices of one organization's environment, and the name they come from. */
export interface NoticeAudience {
  merchantName: string;
  users: Pick<User, "email" | "role" | "notifyPaymentReceived" | "notifyInvoicePaid" | "notifyWebhookFailing">[];
}

/** The audience of each of `keys` (by keyOf), read before the batch that queues the notices. */
export async function loadNoticeAudiences(db: Db, keys: Key[]): Promise<Map<string, NoticeAudience>> {
  const distinct = [...new Map(keys.map((key) => [keyOf(key), key])).values()];
  if (distinct.length === 0) return new Map();
  const [users, names] = await Promise.all([
    usersOfOrganizations(db, [...new Set(distinct.map((key) => key.organizationId))]),
    Promise.all(distinct.map((key) => merchantName(db, key))),
  ]);
  return new Map(
    distinct.map((key, i) => [keyOf(key), { merchantName: names[i]!, users: users.filter((user) => user.organizationId === key.organizationId) }]),
  );
}

export const keyOf = (key: Key) => `${key.organizationId}/${key.environment}`;

/** The addresses that chose `kind`; a failing endpoint is told to those who can mend it (developers and up). */
export function noticeRecipients(audience: NoticeAudience | undefined, kind: NoticeKind): string[] {
  if (!audience) return [];
  return audience.users
    .filter((user) => user[CHOICE[kind]] && (kind !== "webhook_failing" || roleAllows(user.role as Role, "developer")))
    .map((user) => user.email);
}

const footer = (kind: NoticeKind) =>
  `You get this mail because "${NOTICE_NAMES[kind]}" is on in your account on the Stellar Pay dashboard (Account, Email notices).`;
const inSandbox = (key: Key) => (key.environment === "sandbox" ? " (sandbox)" : "");
const dashboardUrl = (deps: Pick<Deps, "config">, path: string) => `${deps.config.publicUrl}/dashboard${path}`;

/** "Payment received": a payment completed (on the ledger or by hand). */
export function paymentReceivedMail(deps: Pick<Deps, "config">, payment: Payment, audience: NoticeAudience, recipient: string): OutgoingMail {
  const amount = `${formatStroops(payment.amountReceived > 0n ? payment.amountReceived : payment.amount)} ${payment.settlementAssetCode}`;
  const facts = [`Amount: ${amount}`, `Payment: ${payment.id}`];
  if (payment.description) facts.push(`Description: ${payment.description}`);
  if (payment.confirmedAt) facts.push(`Paid at: ${payment.confirmedAt.toISOString()}`);
  if (payment.txHash) facts.push(`Transaction: ${payment.txHash}`);
  facts.push(`Environment: ${payment.environment}`);
  const text = [
    `${audience.merchantName} received a payment of ${amount}.`,
    "",
    ...facts,
    "",
    `See the payment: ${dashboardUrl(deps, `/payments/${payment.id}`)}`,
    "",
    footer("payment_received"),
    "",
  ].join("\n");
  return { kind: "payment_received", resourceId: payment.id, recipient, subject: `Payment received: ${amount}${inSandbox(payment)}`, text, senderName: audience.merchantName };
}

/** "Invoice paid": an open invoice's payment completed. */
export function invoicePaidMail(deps: Pick<Deps, "config">, invoice: Invoice, payment: Payment, audience: NoticeAudience, recipient: string): OutgoingMail {
  const amount = `${formatStroops(invoice.amount)} ${payment.settlementAssetCode}`;
  const facts = [`Invoice: ${invoice.invoiceNumber}`, `Amount: ${amount}`];
  if (invoice.paidAt) facts.push(`Paid at: ${invoice.paidAt.toISOString()}`);
  facts.push(`Environment: ${invoice.environment}`);
  const text = [
    `Invoice ${invoice.invoiceNumber} of ${audience.merchantName} was paid: ${amount}.`,
    "",
    ...facts,
    "",
    `See the invoice: ${dashboardUrl(deps, `/invoices/${invoice.id}`)}`,
    "",
    footer("invoice_paid"),
    "",
  ].join("\n");
  return {
    kind: "invoice_paid",
    resourceId: invoice.id,
    recipient,
    subject: `Invoice ${invoice.invoiceNumber} paid: ${amount}${inSandbox(invoice)}`,
    text,
    senderName: audience.merchantName,
  };
}

/** "Webhook endpoint failing": its deliveries have failed for an hour, none succeeding. */
export function webhookFailingMail(
  deps: Pick<Deps, "config">,
  endpoint: WebhookEndpoint,
  episode: { since: Date; lastError: string | null },
  audience: NoticeAudience,
  recipient: string,
): OutgoingMail {
  const facts = [`Endpoint: ${endpoint.url}`, `Failing since: ${episode.since.toISOString()}`];
  if (episode.lastError) facts.push(`Last error: ${episode.lastError}`);
  facts.push(`Environment: ${endpoint.environment}`);
  const text = [
    `A webhook endpoint of ${audience.merchantName} has not accepted an event for over an hour. Its events wait and are retried on their schedule; once it answers 2xx again, they arrive.`,
    "",
    ...facts,
    "",
    `See its deliveries, and retry them: ${dashboardUrl(deps, `/developers/webhooks/${endpoint.id}`)}`,
    "",
    "This is the one mail of this failure: the next comes only if the endpoint recovers and fails again.",
    "",
    footer("webhook_failing"),
    "",
  ].join("\n");
  return {
    kind: "webhook_failing",
    resourceId: endpoint.id,
    recipient,
    subject: `Webhook endpoint failing for an hour: ${endpoint.url}${inSandbox(endpoint)}`,
    text,
    senderName: audience.merchantName,
  };
}
