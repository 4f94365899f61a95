// The public checkout: what a payer may see of a payment, checkout session, invoice or payment link,
// found by its id alone (the id in the URL is the capability). Built field by field from the rows so
// nothing private (metadata, customer, other payments) can slip in. The receipt names the payer's
// address: the ledger shows it with the transaction the receipt already links to.
import type { Deps } from "../../context.ts";
import type { CheckoutSession, Payment, PaymentLink } from "../../generated/sqlite/client.ts";
import { notFound } from "../../errors.ts";
import { type Asset, parseAssetList } from "../../shared/assets.ts";
import { formatStroops } from "../../shared/money.ts";
import { explorerTxUrl } from "../../shared/network.ts";
import { type PaymentInstructions, paymentInstructions } from "../payments/payment-instructions.ts";
import { hasExpired } from "../payments/payment-states.ts";
import { paymentById } from "../payments/payments.store.ts";
import { checkoutSessionsOfPayments, findCheckoutSessionWithPayment } from "../checkout-sessions/checkout-sessions.store.ts";
import { type InvoiceWithItems, findInvoiceWithDetails, invoiceOfCheckoutSession, invoiceOfPayment } from "../invoices/invoices.store.ts";
import type { InvoiceWithDetails } from "../invoices/invoices.view.ts";
import { merchantName } from "../organizations/organizations.store.ts";
import { isPaymentLinkActive } from "../payment-links/payment-links.service.ts";
import { findPaymentLink } from "../payment-links/payment-links.store.ts";

export const CHECKOUT_STATES = ["open", "paid", "failed", "expired", "inactive", "void", "draft"] as const;
export type CheckoutState = (typeof CHECKOUT_STATES)[number];
export const CHECKOUT_KINDS = ["payment", "checkout_session", "invoice", "payment_link"] as const;
export type CheckoutKind = (typeof CHECKOUT_KINDS)[number];

export interface CheckoutReceipt {
  txHash: string | null;
  /** who paid: an account (G...) or a contract account (C...); public on the ledger like the transaction */
  payerAddress: string | null;
  paidAsset: Asset | null;
  confirmedAt: Date | null;
  /** a ledger explorer's page for the transaction */
  explorerUrl: string | null;
}

export interface CheckoutInvoice {
  number: string;
  status: string;
  dueAt: Date;
  items: { description: string; quantity: string; unitAmount: string; amount: string }[];
}

export interface CheckoutView {
  /** the id the page was opened with */
  id: string;
  kind: CheckoutKind;
  state: CheckoutState;
  /** the payment to pay, once there is one */
  paymentId: string | null;
  merchantName: string;
  description: string | null;
  amount: string | null;
  amountReceived: string | null;
  settlementAsset: Asset | null;
  allowedAssets: Asset[];
  expiresAt: Date | null;
  sandbox: boolean;
  /** "testnet" or "public" */
  network: string;
  instructions: PaymentInstructions | null;
  receipt: CheckoutReceipt | null;
  failureReason: string | null;
  successUrl: string | null;
  cancelUrl: string | null;
  invoice: CheckoutInvoice | null;
  /** every resource whose events change this view: what a live subscription listens to */
  relatedIds: string[];
}

const PREFIXES = /^(pay|cs|inv|plink)_[0-9A-Za-z]{1,64}$/;

/** The view of a checkout by its public id; unknown ids (and ids of other kinds) are Not found. */
export async function loadCheckout(deps: Deps, id: string): Promise<CheckoutView> {
  if (!PREFIXES.test(id)) throw notFound();
  const now = deps.clock.now();
  if (id.startsWith("pay_")) {
    const [payment, [session], invoice] = await Promise.all([
      paymentById(deps.db, id),
      checkoutSessionsOfPayments(deps.db, [id]),
      invoiceOfPayment(deps.db, id),
    ]);
    if (!payment) throw notFound();
    return paymentView(deps, id, "payment", payment, session ?? null, invoice, now);
  }
  if (id.startsWith("cs_")) {
    const [session, invoice] = await Promise.all([findCheckoutSessionWithPayment(deps.db, id), invoiceOfCheckoutSession(deps.db, id)]);
    if (!session) throw notFound();
    return paymentView(deps, id, "checkout_session", session.payment, session, invoice, now);
  }
  if (id.startsWith("inv_")) {
    const invoice = await findInvoiceWithDetails(deps.db, id);
    if (!invoice) throw notFound();
    return invoiceView(deps, invoice, now);
  }
  const link = await findPaymentLink(deps.db, id);
  if (!link) throw notFound();
  return linkView(deps, link);
}

function paymentState(payment: Payment, session: CheckoutSession | null, now: Date): CheckoutState {
  if (payment.status === "completed") return "paid";
  // The sweeper may not have run yet: past its expiry a payment is shown as expired.
  if (hasExpired(payment, now) || session?.status === "expired") return "expired";
  // An earlier attempt failed, and the payer may pay again (with instructions) until it expires.
  if (payment.status === "failed") return "failed";
  return "open";
}

function invoiceSummary(invoice: InvoiceWithItems): CheckoutInvoice {
  return {
    number: invoice.invoiceNumber,
    status: invoice.status,
    dueAt: invoice.dueAt,
    items: invoice.items.map((item) => ({
      description: item.description,
      quantity: item.quantity,
      unitAmount: formatStroops(item.unitAmount),
      amount: formatStroops(item.unitAmount * BigInt(item.quantity)),
    })),
  };
}

async function paymentView(
  deps: Deps,
  id: string,
  kind: CheckoutKind,
  payment: Payment,
  session: CheckoutSession | null,
  invoice: InvoiceWithItems | null,
  now: Date,
): Promise<CheckoutView> {
  const sandbox = payment.environment === "sandbox";
  let state = paymentState(payment, session, now);
  if (kind === "invoice" && invoice?.status === "void") state = "void";
  const remaining = payment.amount - payment.amountReceived;
  return {
    id,
    kind,
    state,
    paymentId: payment.id,
    merchantName: await merchantName(deps.db, payment),
    description: payment.description ?? invoice?.description ?? null,
    amount: formatStroops(payment.amount),
    amountReceived: formatStroops(payment.amountReceived),
    settlementAsset: { code: payment.settlementAssetCode, issuer: payment.settlementAssetIssuer },
    allowedAssets: parseAssetList(payment.allowedAssets),
    expiresAt: payment.expiresAt,
    sandbox,
    network: sandbox ? "testnet" : "public",
    // A partial payment leaves the rest to pay: the instructions ask for what is still due.
    instructions: state === "open" || state === "failed" ? paymentInstructions({ ...payment, amount: remaining > 0n ? remaining : payment.amount }) : null,
    receipt:
      payment.status === "completed"
        ? {
            txHash: payment.txHash,
            payerAddress: payment.payerAddress,
            paidAsset: payment.paidAssetCode ? { code: payment.paidAssetCode, issuer: payment.paidAssetIssuer } : null,
            confirmedAt: payment.confirmedAt,
            explorerUrl: payment.txHash ? explorerTxUrl(payment.networkPassphrase, payment.txHash) : null,
          }
        : null,
    failureReason: payment.status === "failed" ? payment.failureReason : null,
    successUrl: session?.successUrl ?? null,
    cancelUrl: session?.cancelUrl ?? null,
    invoice: invoice ? invoiceSummary(invoice) : null,
    relatedIds: [payment.id, session?.id, invoice?.id].filter((x): x is string => Boolean(x)),
  };
}

async function invoiceView(deps: Deps, invoice: InvoiceWithDetails, now: Date): Promise<CheckoutView> {
  if (invoice.payment && invoice.status !== "draft") {
    const view = await paymentView(deps, invoice.id, "invoice", invoice.payment, invoice.checkoutSession, invoice, now);
    return invoice.status === "paid" ? { ...view, state: "paid" } : view;
  }
  const sandbox = invoice.environment === "sandbox";
  return {
    id: invoice.id,
    kind: "invoice",
    state: invoice.status === "void" ? "void" : "draft",
    paymentId: null,
    merchantName: await merchantName(deps.db, invoice),
    description: invoice.description,
    amount: formatStroops(invoice.amount),
    amountReceived: null,
    settlementAsset: null,
    allowedAssets: [],
    expiresAt: null,
    sandbox,
    network: sandbox ? "testnet" : "public",
    instructions: null,
    receipt: null,
    failureReason: null,
    successUrl: null,
    cancelUrl: null,
    invoice: invoiceSummary(invoice),
    relatedIds: [invoice.id],
  };
}

async function linkView(deps: Deps, link: PaymentLink): Promise<CheckoutView> {
  const sandbox = link.environment === "sandbox";
  return {
    id: link.id,
    kind: "payment_link",
    state: isPaymentLinkActive(link) ? "open" : "inactive",
    paymentId: null,
    merchantName: await merchantName(deps.db, link),
    description: link.description,
    amount: formatStroops(link.amount),
    amountReceived: null,
    settlementAsset: { code: link.settlementAssetCode, issuer: link.settlementAssetIssuer },
    allowedAssets: parseAssetList(link.allowedAssets),
    expiresAt: null,
    sandbox,
    network: sandbox ? "testnet" : "public",
    instructions: null,
    receipt: null,
    failureReason: null,
    successUrl: null,
    cancelUrl: null,
    invoice: null,
    relatedIds: [link.id],
  };
}
