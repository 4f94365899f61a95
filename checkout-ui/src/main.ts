// The hosted checkout page for /c/<pay_|cs_ id> and /i/<inv_ id>: loads the public view, keeps it
// live over SSE, and pays from a browser wallet (the server prepares, the wallet signs, the page
// submits), a mobile wallet (SEP-7 QR code) or, in sandbox, a throwaway test wallet.
import "./style.css";
import {
  type AssetRef,
  type CheckoutView,
  ApiError,
  loadCheckout,
  payWithTestWallet,
  prepareTransaction,
  submitTransaction,
  watchCheckout,
} from "./api.ts";
import { assetKey, assetLabel, countdown, describeFailure, formatAmount } from "./format.ts";
import { qrSvg } from "./qr.ts";
import { connectFreighter } from "./wallet.ts";

const root = document.getElementById("app")!;
const id = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] ?? "");

let view: CheckoutView | null = null;
let payAsset: string | null = null;
let busy = false;
let notice: { text: string; error: boolean } | null = null;
let redirectTimer: number | null = null;
/** Whether the payer opened the mobile-wallet details: every render rebuilds them, open or not. */
let mobileOpen = false;

type Child = Node | string | null | undefined | false;

/** A tiny element builder: text is always set as text, never parsed as HTML. */
function h(tag: string, attrs: Record<string, string | boolean | ((event: Event) => void)> = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (typeof value === "function") el.addEventListener(name.slice(2), value);
    else if (value === true) el.setAttribute(name, "");
    else if (value !== false) el.setAttribute(name, value);
  }
  for (const child of children) if (child) el.append(child);
  return el;
}

const money = (amount: string, asset: AssetRef | null) => `${formatAmount(amount)}${asset ? ` ${assetLabel(asset)}` : ""}`;

function copyRow(label: string, value: string): HTMLElement {
  const button = h("button", { type: "button", class: "copy", "aria-label": `Copy ${label.toLowerCase()}` }, "Copy");
  button.addEventListener("click", async () => {
    await navigator.clipboard?.writeText(value).catch(() => undefined);
    button.textContent = "Copied";
    setTimeout(() => (button.textContent = "Copy"), 1500);
  });
  return h("div", { class: "copy-row" }, h("dt", {}, label), h("dd", {}, h("code", {}, value), button));
}

function header(v: CheckoutView): HTMLElement {
  return h(
    "header",
    {},
    h("p", { class: "merchant" }, v.merchantName || "Merchant", v.sandbox && h("span", { class: "badge" }, "Sandbox")),
    v.invoice && h("p", { class: "muted" }, `Invoice ${v.invoice.number} · due ${new Date(v.invoice.dueAt).toLocaleDateString()}`),
    v.description && h("h1", { class: "description" }, v.description),
    v.amount && h("p", { class: "amount", "data-testid": "amount" }, money(v.amount, v.settlementAsset)),
  );
}

function invoiceLines(v: CheckoutView): HTMLElement | null {
  if (!v.invoice || v.invoice.items.length === 0) return null;
  return h(
    "table",
    { class: "lines" },
    h("caption", { class: "visually-hidden" }, "Invoice items"),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Item"), h("th", { scope: "col" }, "Qty"), h("th", { scope: "col" }, "Amount"))),
    h(
      "tbody",
      {},
      ...v.invoice.items.map((item) =>
        h("tr", {}, h("td", {}, item.description), h("td", {}, item.quantity), h("td", {}, money(item.amount, v.settlementAsset))),
      ),
    ),
  );
}

function selectedAsset(v: CheckoutView): AssetRef {
  return v.allowedAssets.find((a) => assetKey(a) === payAsset) ?? v.settlementAsset ?? v.allowedAssets[0]!;
}

async function run(action: () => Promise<void>) {
  if (busy) return;
  busy = true;
  render();
  try {
    await action();
  } catch (error) {
    notice = { text: error instanceof Error ? error.message : String(error), error: true };
  } finally {
    busy = false;
    render();
  }
}

function payWithBrowserWallet(v: CheckoutView) {
  return run(async () => {
    notice = { text: "Connecting to your wallet…", error: false };
    render();
    const wallet = await connectFreighter();
    const asset = selectedAsset(v);
    const prepared = await prepareTransaction(v.paymentId!, wallet.address, asset);
    const quote = v.settlementAsset && assetKey(asset) !== assetKey(v.settlementAsset) ? ` You pay at most ${money(prepared.sendMax, asset)}.` : "";
    notice = { text: `Approve the payment in your wallet.${quote}`, error: false };
    render();
    const signed = await wallet.sign(prepared.xdr, prepared.networkPassphrase);
    notice = { text: "Submitting to the Stellar network…", error: false };
    render();
    const submission = await submitTransaction(v.paymentId!, signed);
    if (!submission.successful) throw new Error(describeFailure(submission.resultCodes.join(" ")));
    notice = { text: "Submitted. Waiting for the ledger to confirm…", error: false };
  });
}

function payWithTestWalletNow(v: CheckoutView) {
  return run(async () => {
    notice = { text: "Funding a throwaway test wallet and paying…", error: false };
    render();
    const submission = await payWithTestWallet(v.paymentId!);
    if (!submission.successful) throw new Error(describeFailure(submission.resultCodes.join(" ")));
    notice = { text: "Test payment submitted. Waiting for the ledger to confirm…", error: false };
  });
}

function mobileWallet(v: CheckoutView): HTMLElement {
  const i = v.instructions!;
  const qr = h("div", { class: "qr", role: "img", "aria-label": "QR code of the payment request for a mobile wallet" });
  void qrSvg(i.sep7Uri).then((svg) => {
    // The SVG is generated locally from the payment URI, not taken from the network.
    qr.innerHTML = svg;
  });
  const due = v.amountReceived && v.amount && v.amountReceived !== "0.0000000" ? "Amount still due" : "Amount";
  return h(
    "details",
    { class: "mobile", open: mobileOpen, ontoggle: (event: Event) => (mobileOpen = (event.target as HTMLDetailsElement).open) },
    h("summary", {}, "Pay from a mobile wallet"),
    h("p", { class: "muted" }, "Scan with a SEP-7 wallet, or copy the details. Keep the memo: it identifies your payment."),
    qr,
    h(
      "dl",
      {},
      copyRow("Destination", i.destination),
      copyRow("Memo (ID)", i.memo),
      copyRow(due, sep7Amount(i.sep7Uri) ?? v.amount ?? ""),
      copyRow("Muxed address (memo included)", i.muxedDestination),
    ),
  );
}

const sep7Amount = (uri: string) => new URLSearchParams(uri.split("?")[1] ?? "").get("amount");

function openSection(v: CheckoutView): HTMLElement {
  const assets = v.allowedAssets;
  const current = selectedAsset(v);
  const chooser =
    assets.length > 1 &&
    h(
      "label",
      { class: "field" },
      "Pay with",
      h(
        "select",
        {
          onchange: (event: Event) => {
            payAsset = (event.target as HTMLSelectElement).value;
            render();
          },
          disabled: busy,
        },
        ...assets.map((a) => h("option", { value: assetKey(a), selected: assetKey(a) === assetKey(current) }, assetLabel(a))),
      ),
    );
  const converts = v.settlementAsset && assetKey(current) !== assetKey(v.settlementAsset);
  const expires = v.expiresAt ? countdown(new Date(v.expiresAt)) : null;
  return h(
    "section",
    { class: "pay" },
    expires && h("p", { class: "countdown", "data-testid": "countdown" }, "Expires in ", h("time", { datetime: v.expiresAt! }, expires)),
    chooser,
    converts &&
      h(
        "p",
        { class: "muted" },
        `Paying in ${assetLabel(current)}: the network converts it to ${money(v.amount!, v.settlementAsset)}. Your wallet shows the quoted maximum before you sign.`,
      ),
    h("button", { type: "button", class: "primary", disabled: busy, onclick: () => void payWithBrowserWallet(v) }, "Pay with Freighter"),
    v.sandbox &&
      h("button", { type: "button", class: "secondary", disabled: busy, onclick: () => void payWithTestWalletNow(v) }, "Pay with a test wallet"),
    notice && h("p", { class: notice.error ? "notice error" : "notice", role: notice.error ? "alert" : "status" }, notice.text),
    v.instructions && mobileWallet(v),
  );
}

function paidSection(v: CheckoutView): HTMLElement {
  const r = v.receipt;
  if (v.successUrl && redirectTimer === null) redirectTimer = window.setTimeout(() => location.assign(v.successUrl!), 3000);
  return h(
    "section",
    { class: "result paid" },
    h("h2", {}, "Paid"),
    h("p", {}, `Thank you. ${v.merchantName || "The merchant"} has received ${money(v.amount!, v.settlementAsset)}.`),
    r?.paidAsset && r.paidAsset.assetCode !== v.settlementAsset?.assetCode && h("p", { class: "muted" }, `Paid with ${assetLabel(r.paidAsset)}.`),
    r?.txHash &&
      h(
        "p",
        { class: "receipt" },
        "Transaction ",
        r.explorerUrl ? h("a", { href: r.explorerUrl, target: "_blank", rel: "noopener noreferrer" }, h("code", {}, r.txHash)) : h("code", {}, r.txHash),
      ),
    r?.confirmedAt && h("p", { class: "muted" }, `Confirmed ${new Date(r.confirmedAt).toLocaleString()}`),
    v.successUrl && h("p", {}, h("a", { href: v.successUrl }, "Return to the merchant"), " (you are being redirected)"),
  );
}

const FINAL: Record<string, [string, (v: CheckoutView) => string]> = {
  failed: ["Payment failed", (v) => describeFailure(v.failureReason)],
  expired: ["Payment expired", () => "This payment request has expired. Please ask the merchant for a new one."],
  inactive: ["Link inactive", () => "This payment link is inactive. Please contact the merchant."],
  void: ["Invoice void", () => "This invoice has been voided and can no longer be paid."],
  draft: ["Invoice not issued yet", () => "This invoice has not been finalized by the merchant yet."],
};

/** What tells a control from the others across re-renders: the copy buttons share their text. */
const focusKey = (el: Element) => `${el.tagName}:${el.getAttribute("aria-label") ?? el.textContent}`;

function render() {
  root.setAttribute("aria-busy", String(busy));
  if (!view) return;
  const v = view;
  const final = () => h("section", { class: `result ${v.state}` }, h("h2", {}, FINAL[v.state]![0]), h("p", {}, FINAL[v.state]![1](v)));
  const body =
    v.state === "open"
      ? v.paymentId
        ? openSection(v)
        : h("p", {}, "This checkout is not ready for payment.")
      : v.state === "paid"
        ? paidSection(v)
        : payable(v)
          ? // A failed attempt is not final until the payment expires: say why, and offer paying again.
            h("div", {}, final(), h("p", { class: "retry" }, "You can try again."), openSection(v))
          : final();
  const focused = document.activeElement && document.activeElement !== document.body ? focusKey(document.activeElement) : null;
  root.replaceChildren(
    header(v),
    invoiceLines(v) ?? "",
    body,
    payable(v) && v.cancelUrl ? h("p", { class: "cancel" }, h("a", { href: v.cancelUrl }, "Cancel and return to the merchant")) : "",
    h("footer", { class: "muted" }, `Stellar ${v.network === "public" ? "public network" : "test network"}`),
  );
  // Keep keyboard focus on the same control across re-renders.
  if (focused) [...root.querySelectorAll<HTMLElement>("button, select, summary, a")].find((el) => focusKey(el) === focused)?.focus();
  document.title = `${v.state === "paid" ? "Paid" : "Pay"} ${v.merchantName}`.trim();
}

/** The payer may pay now: open, or failed before and not yet expired (then the server gives instructions). */
const payable = (v: CheckoutView) => Boolean(v.paymentId && (v.state === "open" || (v.state === "failed" && v.instructions)));

function showView(next: CheckoutView) {
  // The failure section says why an attempt failed; a notice from before would repeat or contradict it.
  if (next.state !== "open" && next.state !== view?.state) notice = null;
  view = next;
  render();
}

async function start() {
  try {
    showView(await loadCheckout(id));
  } catch (error) {
    const missing = error instanceof ApiError && error.code === "NOT_FOUND";
    root.replaceChildren(
      h("h1", {}, missing ? "Checkout not found" : "Checkout unavailable"),
      h("p", {}, missing ? "This payment page does not exist. Check the link you were given." : "Please try again in a moment."),
    );
    root.setAttribute("aria-busy", "false");
    return;
  }
  watchCheckout(id, showView);
  // The countdown ticks locally; at zero the page shows the expiry without waiting for the server.
  setInterval(() => {
    if (!view || !payable(view) || !view.expiresAt) return;
    const left = countdown(new Date(view.expiresAt));
    const time = root.querySelector('[data-testid="countdown"] time');
    if (left === null) showView({ ...view, state: "expired", instructions: null });
    else if (time) time.textContent = left;
  }, 1000);
}

void start();
