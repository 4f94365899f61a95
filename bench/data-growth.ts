// `npm run bench:data-growth`: do lists stay flat as a merchant's data grows (#16)? One service
// process (WORKERS=1) serves two organizations in one database: one with 1,000,000 payments and
// one with 10,000, each with their customers, events, checkout sessions, invoices, payment links,
// webhook deliveries, mails and ledger payments in proportion, written in bulk (JSON rows, one
// statement per table per chunk, typed-sql's insertJsonRows) rather than through the API. Then every
// list and filter of the API (REST, and GraphQL for those only it offers) is measured through HTTP
// for both organizations in alternating rounds (small, large, small, ...) so a machine that gets
// busier or quieter meanwhile weighs on both alike, and the median ratio of the large
// organization's rate to the small one's is printed per list (aim: >= 0.8), on SQLite and on
// PostgreSQL in the same run, with the service's CPU time per request, which a busy machine
// disturbs far less than the rates.
//
// Flags: --payments 1000000 (the large organization), --small 10000, --dialect sqlite|postgresql
// (both by default), --seconds 1 --rounds 3 --connections 8 (each measurement), --only <text> (the
// lists whose name contains it; the dashboard's one-at-a-time latency is measured in every run).
// PostgreSQL: BENCH_DATABASE_URL, default postgresql://postgres@127.0.0.1:5432/test (a fresh schema, dropped after).
import { parseArgs } from "node:util";
import { Networks } from "@stellar/stellar-sdk";
import { directSql } from "../src/db/client.ts";
import type { DirectSql, Statement } from "../src/db/direct-sql.ts";
import { insertJsonRows, typedSqlOn } from "../src/db/typed-sql.ts";
import { cursorOf } from "../src/graphql/connection.ts";
import { createWebhookEndpointSchema } from "../src/modules/webhook-endpoints/webhook-endpoints.inputs.ts";
import { createWebhookEndpoint } from "../src/modules/webhook-endpoints/webhook-endpoints.service.ts";
import { randomBase62 } from "../src/shared/ids.ts";
import { createHash } from "node:crypto";
import { searchTermsOf } from "../src/modules/payments/payment-search.ts";
import { measure, percentile } from "./lib/measure.ts";
import { prepareMerchant, startService, type ServiceUnderTest } from "./lib/service.ts";

const { values: flags } = parseArgs({
  options: {
    payments: { type: "string", default: "1000000" },
    small: { type: "string", default: "10000" },
    dialect: { type: "string" },
    seconds: { type: "string", default: "1" },
    rounds: { type: "string", default: "3" },
    connections: { type: "string", default: "8" },
    only: { type: "string" },
  },
});
const largeSize = Number(flags.payments);
const smallSize = Number(flags.small);
const seconds = Number(flags.seconds);
const rounds = Number(flags.rounds);
const connections = Number(flags.connections);
const postgresUrl = process.env.BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
const dialects = flags.dialect ? [flags.dialect] : ["sqlite", "postgresql"];

// ---- the data: what a merchant with `payments` payments has, in proportion

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const DAY_MS = 86_400_000;
/** rows written per statement (and per transaction: one chunk of payments with all that hangs on them) */
const CHUNK = 5000;

/** A payment's fate, in the mix a live merchant sees (per 100 payments). */
const STATUS_MIX: [status: string, per100: number][] = [
  ["completed", 70],
  ["expired", 20],
  ["pending", 8],
  ["failed", 2],
];
const statusOf = (i: number) => {
  let rest = (i * 37) % 100; // spread the statuses through time
  for (const [status, share] of STATUS_MIX) if ((rest -= share) < 0) return status;
  return "completed";
};

const COLUMNS = {
  Customer: { id: "text", organizationId: "text", environment: "text", email: "text", name: "text", createdAt: "timestamp", updatedAt: "timestamp" },
  PaymentLink: {
    id: "text", organizationId: "text", environment: "text", amount: "bigint", settlementAssetCode: "text", allowedAssets: "text",
    active: "boolean", description: "text", createdAt: "timestamp", updatedAt: "timestamp",
  },
  Payment: {
    id: "text", organizationId: "text", environment: "text", amount: "bigint", settlementAssetCode: "text", allowedAssets: "text",
    paidAssetCode: "text", status: "text", description: "text", metadata: "text", sourceType: "text", customerId: "text",
    payerAddress: "text", txHash: "text", confirmedAt: "timestamp", expiresAt: "timestamp", amountReceived: "bigint",
    settlementAddress: "text", networkPassphrase: "text", memoId: "text", createdAt: "timestamp", updatedAt: "timestamp",
  },
  Event: {
    id: "text", organizationId: "text", environment: "text", type: "text", resourceId: "text", data: "text", createdAt: "timestamp", fannedOutAt: "timestamp",
  },
  CheckoutSession: {
    id: "text", organizationId: "text", environment: "text", status: "text", paymentId: "text", paymentLinkId: "text", customerId: "text",
    successUrl: "text", expiresAt: "timestamp", createdAt: "timestamp", updatedAt: "timestamp",
  },
  Invoice: {
    id: "text", organizationId: "text", environment: "text", invoiceNumber: "text", status: "text", amount: "bigint", customerId: "text",
    paymentId: "text", dueAt: "timestamp", paidAt: "timestamp", sentAt: "timestamp", finalizedAt: "timestamp", createdAt: "timestamp", updatedAt: "timestamp",
  },
  MailMessage: {
    id: "text", organizationId: "text", environment: "text", kind: "text", resourceId: "text", recipient: "text", subject: "text",
    textBody: "text", status: "text", sentAt: "timestamp", createdAt: "timestamp", updatedAt: "timestamp",
  },
  WebhookDelivery: {
    id: "text", organizationId: "text", environment: "text", endpointId: "text", eventId: "text", eventType: "text", status: "text",
    attemptCount: "integer", responseCode: "integer", requestPayload: "text", createdAt: "timestamp", updatedAt: "timestamp",
  },
  PaymentSearchTerm: { organizationId: "text", environment: "text", term: "text", createdAt: "timestamp", paymentId: "text" },
  LedgerPayment: {
    networkPassphrase: "text", operationId: "text", txHash: "text", account: "text", sourceAccount: "text", amount: "bigint",
    assetCode: "text", memoType: "text", memo: "text", paymentId: "text", ledgerCreatedAt: "timestamp", createdAt: "timestamp",
  },
} satisfies Record<string, Record<string, string>>;
type Table = keyof typeof COLUMNS;
type Rows = Partial<Record<Table, Record<string, unknown>[]>>;

const inserts = Object.fromEntries(Object.entries(COLUMNS).map(([table, columns]) => [table, insertJsonRows(table as Table, columns)])) as Record<Table, ReturnType<typeof insertJsonRows>>;
const insert = (sql: DirectSql, table: Table, rows: Record<string, unknown>[]): Statement =>
  inserts[table].statement(typedSqlOn(sql), { rows: JSON.stringify(rows) });

async function write(sql: DirectSql, rows: Rows) {
  await sql.batch(Object.entries(rows).filter(([, r]) => r.length).map(([table, r]) => insert(sql, table as Table, r)));
}

/** What the lists are measured with: a row in the middle of each list (for a deep page) and filter values. */
interface Seeded {
  middle: Record<string, string>;
  customerId: string;
  endpointId: string;
  invoiceId: string;
  paymentLinkId: string;
  txHash: string;
  /** what a merchant types: the start of the middle payment's id, an email of a customer, a number in few descriptions */
  search: { idStart: string; email: string; number: string };
  periodFrom: string;
  periodTo: string;
}

/** The rows of one organization's environment with `payments` payments, written chunk by chunk. */
async function seedOrganization(sql: DirectSql, org: { serial: number; id: string; wallet: string; endpoints: string[] }, payments: number): Promise<Seeded> {
  const scope = { organizationId: org.id, environment: "production" };
  const network = Networks.PUBLIC;
  const tag = randomBase62(6);
  const id = (prefix: string, i: number) => `${prefix}_${tag}${String(i).padStart(9, "0")}`;
  const stamp = (ms: number) => sql.storedDate(new Date(ms));
  const now = Date.now();
  const start = now - 180 * DAY_MS;
  const createdMs = (i: number) => start + Math.floor((i * 180 * DAY_MS) / payments);
  /** numbers unique across the organizations: memo ids and ledger operation ids */
  const numbered = (i: number, kind = 0) => String((BigInt(org.serial) * 10n ** 12n + BigInt(i)) * 10n + BigInt(kind));
  // As the service's ids (src/shared/ids.ts): the creation time in 8 base62 characters first, then
  // the rest unique (a search by an id's start meets the payments of that millisecond).
  const paymentIdOf = (i: number, ms: number) => {
    let time = "";
    for (let k = 0, rest = ms; k < 8; k++, rest = Math.floor(rest / 62)) time = BASE62[rest % 62] + time;
    return `pay_${time}${tag}${String(i).padStart(9, "0")}`;
  };
  // random-looking, as the ledger's are (a search by a hash's start meets few others)
  const txHashOf = (i: number) => createHash("sha256").update(`${tag}${i}`).digest("hex");

  const customers = Math.max(10, Math.floor(payments / 200));
  const links = Math.max(100, Math.floor(payments / 1000)); // both organizations' lists of inactive links fill a page
  const setup: Rows = {
    Customer: Array.from({ length: customers }, (_, i) => ({
      id: id("cus", i), ...scope, email: `buyer${i}@example.test`, name: `Buyer ${i}`, createdAt: stamp(createdMs(i * 200)), updatedAt: stamp(createdMs(i * 200)),
    })),
    PaymentLink: Array.from({ length: links }, (_, i) => ({
      id: id("plink", i), ...scope, amount: 100_000_000, settlementAssetCode: "XLM", allowedAssets: '[{"code":"XLM","issuer":null}]',
      active: i % 5 !== 0, description: `Link ${i}`, createdAt: stamp(createdMs(i * 10_000)), updatedAt: stamp(createdMs(i * 10_000)),
    })),
  };
  for (let i = 0; i < customers; i += CHUNK) await write(sql, { Customer: setup.Customer!.slice(i, i + CHUNK) });
  await write(sql, { PaymentLink: setup.PaymentLink! });

  const ids: Record<string, string[]> = {};
  const keep = (list: string, value: string) => (ids[list] ??= []).push(value);
  let invoices = 0;
  for (let from = 0; from < payments; from += CHUNK) {
    const rows: Required<Rows> = { Customer: [], PaymentLink: [], Payment: [], PaymentSearchTerm: [], Event: [], CheckoutSession: [], Invoice: [], MailMessage: [], WebhookDelivery: [], LedgerPayment: [] };
    for (let i = from; i < Math.min(payments, from + CHUNK); i++) {
      const status = statusOf(i);
      const created = createdMs(i);
      const settled = created + 3 * 60_000;
      const paymentId = paymentIdOf(i, created);
      const customerId = i % 10 < 3 ? id("cus", i % customers) : null;
      const txHash = status === "completed" ? txHashOf(i) : null;
      const source = i % 10 === 9 ? "checkout_session" : i % 20 === 3 ? "invoice" : "direct";
      const amount = 125_000_000 + (i % 1000) * 10_000;
      const description = `Order ${i}`;
      const metadata = `{"order_id":"${i}"}`;
      rows.Payment.push({
        id: paymentId, ...scope, amount, settlementAssetCode: "XLM", allowedAssets: '[{"code":"XLM","issuer":null}]',
        paidAssetCode: txHash ? "XLM" : null, status, description, metadata, sourceType: source, customerId,
        payerAddress: txHash ? org.wallet : null, txHash, confirmedAt: txHash ? stamp(settled) : null,
        // Those still awaiting payment (pending, failed) expire tomorrow: the service's expiry
        // would otherwise spend the measurements expiring them.
        expiresAt: stamp(status === "pending" || status === "failed" ? now + DAY_MS : created + 30 * 60_000), amountReceived: txHash ? 125_000_000 : 0,
        settlementAddress: org.wallet, networkPassphrase: network, memoId: numbered(i), createdAt: stamp(created), updatedAt: stamp(txHash ? settled : created),
      });
      // what the payment's insert and completion write for the search (payment-search.ts)
      for (const term of searchTermsOf({ id: paymentId, description, metadata, amount: BigInt(amount), txHash })) {
        rows.PaymentSearchTerm.push({ ...scope, term, createdAt: stamp(created), paymentId });
      }
      keep("payments", paymentId);
      keep(`payments:${status}`, paymentId);
      if (customerId === id("cus", 0)) keep("payments:customer", paymentId);
      // Its events (payment.created, and its end unless pending), each delivered to the endpoints.
      const events: [string, number][] = [["payment.created", created], ...(status === "pending" ? [] : [[`payment.${status}`, settled] as [string, number]])];
      for (const [n, [type, at]] of events.entries()) {
        const eventId = id(`evt${n}`, i);
        rows.Event.push({ id: eventId, ...scope, type, resourceId: paymentId, data: `{"id":"${paymentId}","status":"${status}"}`, createdAt: stamp(at), fannedOutAt: stamp(at) });
        for (const [e, endpointId] of org.endpoints.entries()) {
          if (e > 0 && type !== "payment.completed") continue; // the others listen to completions only
          const deliveryId = id(`whd${n}${e}`, i);
          const failed = i % 50 === 7;
          rows.WebhookDelivery.push({
            id: deliveryId, ...scope, endpointId, eventId, eventType: type, status: failed ? "failed" : "succeeded", attemptCount: failed ? 8 : 1,
            responseCode: failed ? 500 : 200, requestPayload: `{"id":"${eventId}","type":"${type}"}`, createdAt: stamp(at), updatedAt: stamp(at),
          });
          keep("deliveries", deliveryId);
          if (e === 0) keep("deliveries:endpoint", deliveryId);
          if (failed) keep("deliveries:failed", deliveryId);
          if (type === "payment.completed") keep("deliveries:completed", deliveryId);
        }
      }
      if (txHash) {
        rows.LedgerPayment.push({
          networkPassphrase: network, operationId: numbered(i), txHash, account: org.wallet, sourceAccount: org.wallet, amount: 125_000_000,
          assetCode: "XLM", memoType: "id", memo: numbered(i), paymentId, ledgerCreatedAt: stamp(settled), createdAt: stamp(settled),
        });
      }
      if (i % 1000 === 500) {
        // Money that matched no payment, left for the merchant to reconcile.
        const operationId = numbered(i, 9);
        rows.LedgerPayment.push({
          networkPassphrase: network, operationId, txHash: `${tag}u${String(i).padStart(57, "0")}`, account: org.wallet, sourceAccount: org.wallet,
          amount: 10_000_000, assetCode: "XLM", memoType: null, memo: null, paymentId: null, ledgerCreatedAt: stamp(settled), createdAt: stamp(settled),
        });
        keep("unmatched", operationId);
      }
      if (source === "checkout_session") {
        const sessionId = id("cs", i);
        const sessionStatus = status === "completed" ? "complete" : status === "pending" ? "open" : "expired";
        const paymentLinkId = i % 30 === 9 ? id("plink", i % links) : null;
        rows.CheckoutSession.push({
          id: sessionId, ...scope, status: sessionStatus, paymentId, paymentLinkId, customerId, successUrl: "https://shop.example.test/thanks",
          expiresAt: stamp(created + 30 * 60_000), createdAt: stamp(created), updatedAt: stamp(created),
        });
        keep("sessions", sessionId);
        keep(`sessions:${sessionStatus}`, sessionId);
        if (customerId === id("cus", 0)) keep("sessions:customer", sessionId);
        if (paymentLinkId === id("plink", 9 % links)) keep("sessions:link", sessionId);
      }
      if (source === "invoice") {
        const invoiceId = id("inv", i);
        const invoiceStatus = status === "completed" ? "paid" : status === "pending" ? "open" : "void";
        rows.Invoice.push({
          id: invoiceId, ...scope, invoiceNumber: `INV-${String(++invoices).padStart(7, "0")}`, status: invoiceStatus, amount: 125_000_000,
          customerId, paymentId, dueAt: stamp(created + 30 * DAY_MS), paidAt: txHash ? stamp(settled) : null, sentAt: stamp(created),
          finalizedAt: stamp(created), createdAt: stamp(created), updatedAt: stamp(created),
        });
        keep("invoices", invoiceId);
        keep(`invoices:${invoiceStatus}`, invoiceId);
        if (customerId === id("cus", 0)) keep("invoices:customer", invoiceId);
        const mailId = id("msg", i);
        rows.MailMessage.push({
          id: mailId, ...scope, kind: "invoice", resourceId: invoiceId, recipient: "buyer@example.test", subject: "Your invoice",
          textBody: "Pay here: https://pay.example.test/i/...", status: "sent", sentAt: stamp(created), createdAt: stamp(created), updatedAt: stamp(created),
        });
        keep("mails", mailId);
      }
    }
    await write(sql, rows);
    if (payments >= 100_000 && (from / CHUNK) % 20 === 19) process.stderr.write(`  ${from + CHUNK} of ${payments} payments written\n`);
  }
  const middle = Object.fromEntries(Object.entries(ids).map(([list, all]) => [list, all[Math.floor(all.length / 2)]!]));
  middle.customers = id("cus", Math.floor(customers / 2));
  middle.links = id("plink", Math.floor(links / 2));
  const invoicedCustomer = id("cus", 0);
  return {
    middle,
    customerId: invoicedCustomer,
    endpointId: org.endpoints[0]!,
    invoiceId: ids.invoices![0]!,
    paymentLinkId: id("plink", 9 % links),
    // the oldest payment's (completed): a search that walked the list would walk all of it
    txHash: txHashOf(0),
    search: { idStart: middle.payments!.slice(0, 14), email: `buyer${Math.floor(customers / 2)}@example.test`, number: String(Math.floor(payments / 2)) },
    periodFrom: new Date(createdMs(Math.floor(payments / 4))).toISOString(),
    periodTo: new Date(createdMs(Math.floor((payments * 3) / 4))).toISOString(),
  };
}

// ---- the lists, as a merchant's integration and dashboard read them

interface ListRequest {
  name: string;
  /** REST path, or a GraphQL query */
  rest?: string;
  graphql?: string;
}

function listsOf(s: Seeded): ListRequest[] {
  const m = s.middle;
  const q = (name: string, connection: string, parent?: string): ListRequest => {
    const read = `${connection} { edges { cursor node { __typename } } }`;
    return { name, graphql: `{ ${parent ? `${parent} { ${read} }` : read} }` };
  };
  const after = (list: string) => `"${cursorOf(m[list]!)}"`;
  return [
    { name: "payments", rest: "/payments?limit=20" },
    { name: "payments, deep page (starting_after)", rest: `/payments?limit=20&starting_after=${m.payments}` },
    { name: "payments, deep page (ending_before)", rest: `/payments?limit=20&ending_before=${m.payments}` },
    { name: "payments?status=pending", rest: "/payments?limit=20&status=pending" },
    { name: "payments?status=pending, deep", rest: `/payments?limit=20&status=pending&starting_after=${m["payments:pending"]}` },
    { name: "payments?status=failed, deep", rest: `/payments?limit=20&status=failed&starting_after=${m["payments:failed"]}` },
    { name: "payments?customer_id", rest: `/payments?limit=20&customer_id=${s.customerId}` },
    { name: "payments?customer_id, deep", rest: `/payments?limit=20&customer_id=${s.customerId}&starting_after=${m["payments:customer"]}` },
    q("GraphQL payments(first: 20)", "payments(first: 20)"),
    { name: "dashboard's payments page (first: 100, its fields)", graphql: DASHBOARD_PAYMENTS },
    q("GraphQL payments, deep (after)", `payments(first: 20, after: ${after("payments")})`),
    q("GraphQL payments in a period, deep", `payments(first: 20, createdFrom: "${s.periodFrom}", createdTo: "${s.periodTo}", after: ${after("payments")})`),
    q("GraphQL payments(search: txHash)", `payments(first: 20, search: "${s.txHash}")`),
    // #27 item 8: what a merchant types (payment-search.ts)
    q("search: a word in every payment (order)", `payments(first: 20, search: "order")`),
    q("search: the start of that word (ord)", `payments(first: 20, search: "ord")`),
    q("search: the start of the oldest hash", `payments(first: 20, search: "${s.txHash.slice(0, 12)}")`),
    q("search: the start of an id", `payments(first: 20, search: "${s.search.idStart}")`),
    q("search: an amount (12.5, 1 payment in 1,000)", `payments(first: 20, search: "12.5")`),
    q("search: a number in few descriptions", `payments(first: 20, search: "${s.search.number}")`),
    q("search: a customer's email", `payments(first: 20, search: "${s.search.email}")`),
    q("search: two words (order and a number)", `payments(first: 20, search: "order ${s.search.number}")`),
    { name: "checkout-sessions", rest: "/checkout-sessions?limit=20" },
    { name: "checkout-sessions, deep", rest: `/checkout-sessions?limit=20&starting_after=${m.sessions}` },
    { name: "checkout-sessions?status=open, deep", rest: `/checkout-sessions?limit=20&status=open&starting_after=${m["sessions:open"]}` },
    { name: "checkout-sessions?customer_id", rest: `/checkout-sessions?limit=20&customer_id=${s.customerId}` },
    q("GraphQL a payment link's sessions", "checkoutSessions(first: 20)", `paymentLink(id: "${s.paymentLinkId}")`),
    { name: "invoices", rest: "/invoices?limit=20" },
    { name: "invoices, deep", rest: `/invoices?limit=20&starting_after=${m.invoices}` },
    { name: "invoices?status=open, deep", rest: `/invoices?limit=20&status=open&starting_after=${m["invoices:open"]}` },
    { name: "invoices?customer_id", rest: `/invoices?limit=20&customer_id=${s.customerId}` },
    { name: "payment-links?active=false", rest: "/payment-links?limit=20&active=false" },
    { name: "customers, deep", rest: `/customers?limit=20&starting_after=${m.customers}` },
    { name: "webhook-endpoints", rest: "/webhook-endpoints?limit=20" },
    { name: "webhook-deliveries", rest: "/webhook-deliveries?limit=20" },
    { name: "webhook-deliveries, deep", rest: `/webhook-deliveries?limit=20&starting_after=${m.deliveries}` },
    { name: "webhook-deliveries?endpoint_id, deep", rest: `/webhook-deliveries?limit=20&endpoint_id=${s.endpointId}&starting_after=${m["deliveries:endpoint"]}` },
    { name: "webhook-deliveries?status=failed, deep", rest: `/webhook-deliveries?limit=20&status=failed&starting_after=${m["deliveries:failed"]}` },
    { name: "webhook-deliveries?event, deep", rest: `/webhook-deliveries?limit=20&event=payment.completed&starting_after=${m["deliveries:completed"]}` },
    q("GraphQL mail, deep", `mailMessages(first: 20, after: ${after("mails")})`),
    q("GraphQL an invoice's mail", `mailMessages(first: 20, resourceId: "${s.invoiceId}")`),
    q("GraphQL unmatched ledger payments, deep", `unmatchedLedgerPayments(first: 20, after: ${after("unmatched")})`),
  ];
}

/** The dashboard's own payments query (checkout-ui/dashboard/pages/payments.tsx), as its first page asks it: #15's figure. */
const DASHBOARD_PAYMENTS = `{
  payments(first: 100) {
    edges { node {
      id status amount createdAt confirmedAt customerId description txHash late
      settlementAsset { assetCode issuerAddress } paidAsset { assetCode issuerAddress }
    } }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  }
}`;

// ---- measuring

function load(service: ServiceUnderTest, key: string, request: ListRequest) {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (request.rest) return { url: `${service.url}/api/v1${request.rest}`, headers };
  return { url: `${service.url}/graphql`, method: "POST" as const, headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ query: request.graphql }) };
}

/** One request, checked: a list that fails or answers an error is broken, not slow. */
async function check(service: ServiceUnderTest, key: string, request: ListRequest) {
  const { url, ...init } = load(service, key, request);
  const res = await fetch(url, init);
  const text = await res.text();
  if (res.status !== 200 || text.includes('"errors"')) throw new Error(`${request.name} (${request.rest ?? request.graphql}): ${res.status} ${text.slice(0, 300)}`);
}

interface Row {
  name: string;
  small: number;
  large: number;
  ratio: number;
  /** the service's CPU time per request, small and large (ms): it barely depends on what else the machine runs */
  cpuSmall: number;
  cpuLarge: number;
  /** small's CPU per request over large's: as `ratio`, 1 when flat */
  cpuRatio: number;
  /** latency p99 under the same load (ms), small and large, and large over small (#15: aim <= 1.2) */
  p99Small: number;
  p99Large: number;
  p99Ratio: number;
}

/** An organization the bench fills: its API key and size, and what it was seeded with. */
interface Organization {
  serial: number;
  id: string;
  key: string;
  size: number;
  seeded?: Seeded;
}

/**
 * Writes both organizations' data before the service starts: its workers (the live feed, the
 * webhook dispatcher) then find it old, as they would after a restart, instead of a million new events.
 */
async function seedBoth(dialect: string, env: Record<string, string>, large: Awaited<ReturnType<typeof prepareMerchant>>): Promise<Organization[]> {
  const small = await prepareMerchant(env);
  await small.database.close();
  const organizations: Organization[] = [
    { serial: 1, id: small.org.organization_id, key: small.org.live_api_key, size: smallSize },
    { serial: 2, id: large.org.organization_id, key: large.org.live_api_key, size: largeSize },
  ];
  const sql = directSql(large.database.db);
  for (const org of organizations) {
    const scope = { organizationId: org.id, environment: "production" as const, principal: { kind: "key" as const, id: "", role: "admin" as const } };
    const endpoints: string[] = [];
    for (const n of [1, 2, 3]) {
      const input = createWebhookEndpointSchema.parse({ url: `https://hooks.example.test/${n}`, enabled_events: ["*"] });
      const made = await createWebhookEndpoint({ ...large.deps, scope }, input);
      endpoints.push(made.endpoint.id);
    }
    const [settings] = await sql.all(`SELECT "settlementAddress" FROM "EnvironmentSettings" WHERE "organizationId" = $1 AND "environment" = 'production'`, [org.id]);
    const began = Date.now();
    org.seeded = await seedOrganization(sql, { ...org, wallet: String(settings!.settlementAddress), endpoints }, org.size);
    process.stderr.write(`${dialect}: ${org.size} payments and theirs written in ${((Date.now() - began) / 1000).toFixed(0)} s\n`);
  }
  if (dialect === "postgresql") await sql.all("ANALYZE", []);
  return organizations;
}

async function measureDialect(dialect: string): Promise<Row[]> {
  let organizations: Organization[] = [];
  // Retention off: the seeded history spans 180 days, and the purger would delete most of its
  // deliveries and events (and the rows the deep pages start after) while the lists are measured.
  const service = await startService({ WORKERS: "1", EVENT_RETENTION_DAYS: "0", WEBHOOK_DELIVERY_RETENTION_DAYS: "0" }, dialect === "postgresql" ? postgresUrl : "", async (env, large) => {
    organizations = await seedBoth(dialect, env, large);
  });
  try {
    const [smallOrg, largeOrg] = organizations as [Organization, Organization];
    const smallLists = listsOf(smallOrg.seeded!);
    const largeLists = listsOf(largeOrg.seeded!);
    const rows: Row[] = [];
    for (const [i, smallList] of smallLists.entries()) {
      const largeList = largeLists[i]!;
      if (flags.only && !smallList.name.includes(flags.only)) continue;
      await check(service, smallOrg.key, smallList);
      await check(service, largeOrg.key, largeList);
      const rates = { small: [] as number[], large: [] as number[], ratios: [] as number[], cpuSmall: [] as number[], cpuLarge: [] as number[], cpuRatios: [] as number[], p99Small: [] as number[], p99Large: [] as number[], p99Ratios: [] as number[] };
      for (let round = 1; round <= rounds; round++) {
        const warm = round === 1 ? 1 : 0;
        const ofSmall = await measure({ ...load(service, smallOrg.key, smallList), connections, seconds, warmupSeconds: warm }, service);
        const ofLarge = await measure({ ...load(service, largeOrg.key, largeList), connections, seconds, warmupSeconds: warm }, service);
        if (ofSmall.failures || ofLarge.failures) throw new Error(`${smallList.name}: failed requests (${ofSmall.failures}, ${ofLarge.failures})`);
        rates.small.push(ofSmall.requestsPerSecond);
        rates.large.push(ofLarge.requestsPerSecond);
        rates.ratios.push(ofLarge.requestsPerSecond / ofSmall.requestsPerSecond);
        rates.cpuSmall.push(ofSmall.cpuMsPerRequest ?? NaN);
        rates.cpuLarge.push(ofLarge.cpuMsPerRequest ?? NaN);
        rates.cpuRatios.push((ofSmall.cpuMsPerRequest ?? NaN) / (ofLarge.cpuMsPerRequest ?? NaN));
        rates.p99Small.push(ofSmall.p99Ms);
        rates.p99Large.push(ofLarge.p99Ms);
        rates.p99Ratios.push(ofLarge.p99Ms / ofSmall.p99Ms);
      }
      const row: Row = {
        name: smallList.name, small: median(rates.small), large: median(rates.large), ratio: median(rates.ratios),
        cpuSmall: median(rates.cpuSmall), cpuLarge: median(rates.cpuLarge), cpuRatio: median(rates.cpuRatios),
        p99Small: median(rates.p99Small), p99Large: median(rates.p99Large), p99Ratio: median(rates.p99Ratios),
      };
      process.stderr.write(
        `${dialect}: ${row.name}: ${row.small.toFixed(0)}/s at ${smallSize}, ${row.large.toFixed(0)}/s at ${largeSize}, ratio ${row.ratio.toFixed(2)}; ` +
          `CPU ${row.cpuSmall.toFixed(2)} / ${row.cpuLarge.toFixed(2)} ms, ratio ${row.cpuRatio.toFixed(2)}; ` +
          `p99 ${row.p99Small} / ${row.p99Large} ms\n`,
      );
      rows.push(row);
    }
    latencies[dialect] = await dashboardLatency(service, smallOrg, largeOrg);
    return rows;
  } finally {
    await service.stop();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const LATENCY_SAMPLES = 1000;
/** per dialect: the dashboard's payments page, one request at a time, ms (p50, p99) at each size */
const latencies: Record<string, { small: [number, number]; large: [number, number] }> = {};

/**
 * #15's figure: the query's own latency, so one request at a time (no queueing behind the other
 * connections, which sets the p99 of the rate measurements), alternating organizations request by
 * request; the first 50 of each warm up.
 */
async function dashboardLatency(service: ServiceUnderTest, small: Organization, large: Organization) {
  const request: ListRequest = { name: "dashboard", graphql: DASHBOARD_PAYMENTS };
  const times = new Map<Organization, number[]>([[small, []], [large, []]]);
  for (let i = 0; i < LATENCY_SAMPLES + 50; i++) {
    for (const [org, into] of times) {
      const { url, ...init } = load(service, org.key, request);
      const began = performance.now();
      await (await fetch(url, init)).text();
      if (i >= 50) into.push(performance.now() - began);
    }
  }
  const of = (values: number[]): [number, number] => {
    const sorted = [...values].sort((a, b) => a - b);
    return [percentile(sorted, 50), percentile(sorted, 99)];
  };
  return { small: of(times.get(small)!), large: of(times.get(large)!) };
}

const results: Record<string, Row[]> = {};
for (const dialect of dialects) results[dialect] = await measureDialect(dialect);
for (const [dialect, rows] of Object.entries(results)) {
  console.log(`\n${dialect === "sqlite" ? "SQLite" : "PostgreSQL"}: ${largeSize} vs ${smallSize} payments, WORKERS=1, ${connections} connections, median of ${rounds} alternating rounds of ${seconds} s`);
  console.log(`| list | req/s at ${smallSize} | req/s at ${largeSize} | ratio (aim >= 0.8) | service CPU ms/req, ${smallSize} / ${largeSize} | CPU ratio | p99 ms, ${smallSize} / ${largeSize} | p99 ratio (aim <= 1.2) |`);
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    const below = (ratio: number) => `${ratio.toFixed(2)}${ratio < 0.8 ? " (below)" : ""}`;
    console.log(`| ${r.name} | ${r.small.toFixed(0)} | ${r.large.toFixed(0)} | ${below(r.ratio)} | ${r.cpuSmall.toFixed(2)} / ${r.cpuLarge.toFixed(2)} | ${below(r.cpuRatio)} | ${r.p99Small} / ${r.p99Large} | ${r.p99Ratio.toFixed(2)}${r.p99Ratio > 1.2 ? " (above)" : ""} |`);
  }
  const latency = latencies[dialect];
  if (latency) {
    const ms = ([p50, p99]: [number, number]) => `${p50.toFixed(1)} / ${p99.toFixed(1)}`;
    console.log(`\nThe dashboard's payments page (first: 100), one request at a time, ${LATENCY_SAMPLES} each, p50 / p99 ms: ` +
      `${ms(latency.small)} at ${smallSize}, ${ms(latency.large)} at ${largeSize}; p99 ratio ${(latency.large[1] / latency.small[1]).toFixed(2)} (aim <= 1.2)`);
  }
}
