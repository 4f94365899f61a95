// Every list seeks (#16): each statement a list page runs, for every list and filter the API offers
// and every direction (first page, after, before, last, between two cursors), is planned by the
// database as a range of one index that holds the filter and gives the order, with no sort step and
// no full scan. The statements are those the app really sends: the lists are read through GraphQL
// (it reaches every list and every page shape REST does, plus its own nested connections) while
// the app's prepared-statement connection records what it runs, and each is EXPLAINed as it ran,
// with its values. The tables are tiny, so the test asks what the planner can do, not what it
// prefers on a few rows (bench/data-growth.ts measures the lists at a million payments).
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { Keypair } from "@stellar/stellar-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { directSql, postgresSchema, sqlitePath } from "../src/db/client.ts";
import { cursorOf } from "../src/graphql/connection.ts";
import { networkPassphraseFor } from "../src/shared/network.ts";
import { type DashboardClient, signedInUser } from "./support/dashboard.ts";
import { sqlitePlan } from "./support/sqlite-plan.ts";
import { type Merchant, type TestApp, dialect, startTestApp } from "./support/test-app.ts";

let t: TestApp;
let m: Merchant;
let owner: DashboardClient;
const recorded: { text: string; params: unknown[] }[] = [];

interface Rows {
  customer: string;
  customers: string[];
  payments: string[];
  sessions: string[];
  invoices: string[];
  links: string[];
  endpoints: string[];
  deliveries: string[];
  mails: string[];
  audits: string[];
  ledgerPayments: string[];
}
let rows: Rows;

const post = async (path: string, body: Record<string, unknown> = {}) => {
  const res = await t.api("POST", path, { key: m.sandboxKey, body });
  expect(res.status, res.raw).toBeLessThan(300);
  return res.body.id as string;
};
const three = async (make: () => Promise<string>) => [await make(), await make(), await make()];

beforeAll(async () => {
  t = await startTestApp();
  m = await t.createMerchant();
  owner = await signedInUser(t, m.organizationId, "owner");
  const db = t.deps.db;
  const scope = { organizationId: m.organizationId, environment: "sandbox" };
  const customers = await three(() => post("/customers", { name: "Ada" }));
  const customer = customers[0]!;
  // Active links among inactive ones, as a merchant's list has them (the planner's statistics see both).
  const links: string[] = [];
  const inactive: string[] = [];
  for (let i = 0; i < 3; i++) {
    inactive.push(await post("/payment-links", { amount: "2" }));
    links.push(await post("/payment-links", { amount: "1" }));
  }
  inactive.push(await post("/payment-links", { amount: "2" }));
  await db.paymentLink.updateMany({ where: { id: { in: inactive } }, data: { active: false } });
  const sessions = await three(() => post("/checkout-sessions", { amount: "1", customer_id: customer }));
  // PaymentLink.checkoutSessions lists the sessions a link opened: these three stand for them.
  await db.checkoutSession.updateMany({ where: { id: { in: sessions } }, data: { paymentLinkId: links[0] } });
  const endpoint = await post("/webhook-endpoints", { url: "https://example.test/hook", enabled_events: ["*"] });
  const endpoints = [endpoint, ...(await Promise.all([1, 2].map(() => post("/webhook-endpoints", { url: "https://example.test/other", enabled_events: ["*"] }))))];
  const deliveries = await three(() => post(`/webhook-endpoints/${endpoint}/test`));
  const invoices = await three(() => post("/invoices", { amount: "1", customer_id: customer }));
  const now = Date.now();
  const at = (i: number) => new Date(now + i);
  const mails = [0, 1, 2].map((i) => `mail_plan${i}`);
  await db.mailMessage.createMany({
    data: mails.map((id, i) => ({
      id, ...scope, kind: "invoice", resourceId: invoices[0], recipient: "ada@example.test", subject: "Invoice", textBody: "-",
      status: "logged", createdAt: at(i), updatedAt: at(i),
    })),
  });
  const audits = [0, 1, 2].map((i) => `aud_plan${i}`);
  await db.auditEntry.createMany({
    data: audits.map((id, i) => ({
      id, ...scope, action: "api_key.created", resourceId: "key_x", actorKind: "user", actorId: owner.userId, actorLabel: owner.email, createdAt: at(i),
    })),
  });
  const ledgerPayments = [0, 1, 2].map((i) => `10000${i}`);
  await db.ledgerPayment.createMany({
    data: ledgerPayments.map((operationId, i) => ({
      networkPassphrase: networkPassphraseFor("sandbox"), operationId, txHash: `tx${i}`, account: m.wallet.publicKey(),
      sourceAccount: Keypair.random().publicKey(), amount: 1n, assetCode: "XLM", ledgerCreatedAt: at(i), createdAt: at(i),
    })),
  });
  rows = { customer, customers, links: [...links, ...inactive], payments: await three(() => post("/payments", { amount: "1", customer_id: customer })), sessions, invoices, endpoints, deliveries, mails, audits, ledgerPayments };

  // Records each read the app runs on its prepared-statement connection (every list page is one).
  const direct = directSql(db);
  const all = direct.all.bind(direct);
  direct.all = (text, params) => {
    recorded.push({ text, params });
    return all(text, params);
  };
});
afterAll(() => t.close());

// ---- the plans

interface ListShape {
  /** the table the list reads */
  table: string;
  /** the columns its order is (time, key) */
  order: [string, string];
  /** columns the index range must hold with an equality (the scope and the filters given) */
  seek: string[];
  /** of these, at least one (two filters at once: one is sought, the other checked on the rows it reads) */
  seekOneOf?: string[];
}

interface Plan {
  /** every node, as one line each, for the failure message */
  lines: string[];
  /** the seek conditions of the index scans on the table, one string per scan */
  seeks: string[];
  fullScan: boolean;
  sort: boolean;
}

let postgres: pg.Client | undefined;
let sqlite: BetterSqlite3.Database | undefined;

async function planOf(text: string, params: unknown[], table: string, generic = false): Promise<Plan> {
  if (dialect === "sqlite") {
    sqlite ??= new BetterSqlite3(sqlitePath(t.config.databaseUrl), { readonly: true });
    const lines = sqlitePlan(sqlite, text, params);
    return {
      lines,
      seeks: lines.filter((l) => l.startsWith(`SEARCH ${table} USING`)),
      fullScan: lines.some((l) => l.startsWith(`SCAN ${table}`)),
      sort: lines.some((l) => l.includes("TEMP B-TREE")),
    };
  }
  if (!postgres) {
    postgres = new pg.Client({ connectionString: t.config.databaseUrl, options: `-c search_path="${postgresSchema(t.config.databaseUrl)}"` });
    await postgres.connect();
    // On a few rows a sequential scan and a sort are cheapest, and PostgreSQL would rightly pick
    // them; switched off, the plan shows whether an index range can serve the statement in its
    // order (a missing index would still leave a Seq Scan or a Sort in the plan).
    await postgres.query("SET enable_seqscan = off");
    await postgres.query("SET enable_sort = off");
    // With no statistics at all a boolean filter (active) looks no more selective than none, and
    // the order's index ties with the filter's; any statistics break the tie, as in production.
    await postgres.query("ANALYZE");
  }
  const values = params.map((v) => (v instanceof Date ? v.toISOString() : typeof v === "bigint" ? v.toString() : v));
  let plan: any;
  if (generic) {
    // The app's statements are named and prepared: after a few runs PostgreSQL may plan them once
    // for any values (a generic plan), which must seek as well.
    await postgres.query("DEALLOCATE ALL");
    await postgres.query(`PREPARE list_page AS ${text}`);
    await postgres.query("SET plan_cache_mode = force_generic_plan");
    // EXECUTE takes its values as literals (a bound parameter is refused there).
    const args = values.map((v) => (v === null ? "NULL" : postgres!.escapeLiteral(String(v)))).join(", ");
    plan = (await postgres.query(`EXPLAIN (FORMAT JSON) EXECUTE list_page(${args})`)).rows[0]["QUERY PLAN"][0].Plan;
    await postgres.query("RESET plan_cache_mode");
  } else {
    plan = (await postgres.query(`EXPLAIN (FORMAT JSON) ${text}`, values)).rows[0]["QUERY PLAN"][0].Plan;
  }
  const nodes: any[] = [];
  const walk = (node: any) => {
    nodes.push(node);
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(plan);
  return {
    lines: nodes.map((n) => `${n["Node Type"]} ${n["Relation Name"] ?? ""} ${n["Index Name"] ?? ""} ${n["Index Cond"] ?? ""} ${n.Filter ?? ""}`),
    seeks: nodes.filter((n) => /^Index (Only )?Scan$/.test(n["Node Type"]) && n["Relation Name"] === table).map((n) => n["Index Cond"] as string),
    fullScan: nodes.some((n) => n["Node Type"] === "Seq Scan"),
    sort: nodes.some((n) => /Sort$/.test(n["Node Type"])),
  };
}

/** An equality (or IS NULL) on the column, as each database prints an index's seek condition. */
const holds = (seek: string, column: string) =>
  dialect === "sqlite" ? new RegExp(`[(\\s]${column}=\\?`).test(seek) : new RegExp(`\\(("${column}"|${column}) (= |IS NULL)`).test(seek);

/** The cursor's row comparison on the order's columns, in the page's direction. */
const holdsCursor = (seek: string, [time, key]: [string, string], operator: "<" | ">") =>
  dialect === "sqlite"
    ? seek.includes(`(${time},${key})${operator}(`)
    : new RegExp(`ROW\\("${time}", "?${key}"?\\) ${operator} ROW`).test(seek);

async function expectSeeks(shape: ListShape, statement: { text: string; params: unknown[] }, generic: boolean) {
  const plan = await planOf(statement.text, statement.params, shape.table, generic);
  const why = `${statement.text}\n${plan.lines.join("\n")}`;
  expect(plan.fullScan, why).toBe(false);
  expect(plan.sort, why).toBe(false);
  expect(plan.seeks, why).toHaveLength(1);
  const [seek] = plan.seeks as [string];
  for (const column of shape.seek) expect(holds(seek, column), `${column} sought in: ${why}`).toBe(true);
  if (shape.seekOneOf) expect(shape.seekOneOf.some((column) => holds(seek, column)), `one of ${shape.seekOneOf} sought in: ${why}`).toBe(true);
  // Kysely writes "(time, key) < (...)" with spaces on SQLite, the plan without: compare unspaced.
  const text = statement.text.replace(/\s/g, "");
  const [time, key] = shape.order;
  for (const operator of ["<", ">"] as const) {
    if (text.includes(`("${time}","${key}")${operator}`)) expect(holdsCursor(seek, shape.order, operator), `cursor ${operator} sought in: ${why}`).toBe(true);
  }
}

// ---- the lists and their filters, as GraphQL offers them

const scoped = ["organizationId", "environment"];

interface ListCase {
  name: string;
  /** the connection field with its filter arguments, given the rows made above */
  field(r: Rows): string;
  /** a query around the connection: the nested connections are reached through their parent */
  wrap?(r: Rows, connection: string): string;
  /** the rows it lists (newest last) and their page key */
  keys(r: Rows): string[];
  shape: ListShape;
}

const createdOrder: [string, string] = ["createdAt", "id"];
const list = (name: string, table: string, field: (r: Rows) => string, keys: (r: Rows) => string[], seek: string[] = [], extra: Partial<ListCase> = {}): ListCase => ({
  name, field, keys, shape: { table, order: createdOrder, seek: [...scoped, ...seek] }, ...extra,
});

const cases: ListCase[] = [
  list("payments", "Payment", () => "payments", (r) => r.payments),
  list("payments by status", "Payment", () => "payments(status: pending)", (r) => r.payments, ["status"]),
  list("payments by customer", "Payment", (r) => `payments(customerId: "${r.customer}")`, (r) => r.payments, ["customerId"]),
  list("payments by status and customer", "Payment", (r) => `payments(status: pending, customerId: "${r.customer}")`, (r) => r.payments, [], {
    shape: { table: "Payment", order: createdOrder, seek: scoped, seekOneOf: ["status", "customerId"] },
  }),
  list("payments created in a range", "Payment", () => `payments(createdFrom: "2000-01-01T00:00:00Z", createdTo: "2999-01-01T00:00:00Z")`, (r) => r.payments),
  list("a customer's payments", "Payment", () => "payments", (r) => r.payments, ["customerId"], { wrap: (r, c) => `customer(id: "${r.customer}") { ${c} }` }),
  list("checkout sessions", "CheckoutSession", () => "checkoutSessions", (r) => r.sessions),
  list("checkout sessions by status", "CheckoutSession", () => "checkoutSessions(status: open)", (r) => r.sessions, ["status"]),
  list("checkout sessions by customer", "CheckoutSession", (r) => `checkoutSessions(customerId: "${r.customer}")`, (r) => r.sessions, ["customerId"]),
  list("a payment link's checkout sessions", "CheckoutSession", () => "checkoutSessions", (r) => r.sessions, ["paymentLinkId"], {
    wrap: (r, c) => `paymentLink(id: "${r.links[0]}") { ${c} }`,
  }),
  list("invoices", "Invoice", () => "invoices", (r) => r.invoices),
  list("invoices by status", "Invoice", () => "invoices(status: draft)", (r) => r.invoices, ["status"]),
  list("invoices by customer", "Invoice", (r) => `invoices(customerId: "${r.customer}")`, (r) => r.invoices, ["customerId"]),
  list("payment links", "PaymentLink", () => "paymentLinks", (r) => r.links.slice(-3)),
  list("active payment links", "PaymentLink", () => "paymentLinks(active: true)", (r) => r.links.slice(0, 3), ["active"]),
  list("customers", "Customer", () => "customers", (r) => r.customers),
  list("webhook endpoints", "WebhookEndpoint", () => "webhookEndpoints", (r) => r.endpoints),
  list("webhook deliveries", "WebhookDelivery", () => "webhookDeliveries", (r) => r.deliveries),
  list("webhook deliveries by endpoint", "WebhookDelivery", (r) => `webhookDeliveries(endpointId: "${r.endpoints[0]}")`, (r) => r.deliveries, ["endpointId"]),
  list("webhook deliveries by event", "WebhookDelivery", () => `webhookDeliveries(event: "webhook.test")`, (r) => r.deliveries, ["eventType"]),
  list("an endpoint's deliveries", "WebhookDelivery", () => "deliveries", (r) => r.deliveries, ["endpointId"], {
    wrap: (r, c) => `webhookEndpoint(id: "${r.endpoints[0]}") { ${c} }`,
  }),
  list("mail", "MailMessage", () => "mailMessages", (r) => r.mails),
  list("an invoice's mail", "MailMessage", (r) => `mailMessages(resourceId: "${r.invoices[0]}")`, (r) => r.mails, ["resourceId"]),
  {
    name: "audit log",
    field: () => "auditLog",
    keys: (r) => r.audits,
    shape: { table: "AuditEntry", order: createdOrder, seek: ["organizationId"] },
  },
  {
    name: "unmatched ledger payments",
    field: () => "unmatchedLedgerPayments",
    keys: (r) => r.ledgerPayments,
    shape: { table: "LedgerPayment", order: ["ledgerCreatedAt", "operationId"], seek: ["account", "networkPassphrase"] },
  },
];

/** The page shapes of a connection: its arguments besides the filters. */
const pages = (keys: string[]) => {
  const [oldest, middle, newest] = keys.map(cursorOf) as [string, string, string];
  return {
    "first page": "first: 2",
    after: `first: 2, after: "${middle}"`,
    before: `last: 2, before: "${middle}"`,
    last: "last: 2",
    between: `first: 2, after: "${newest}", before: "${oldest}"`,
  };
};

/** A connection's field with the page arguments added to its own. */
const withPage = (field: string, page: string) => (field.endsWith(")") ? `${field.slice(0, -1)}, ${page})` : `${field}(${page})`);

/** Reads one page through GraphQL and returns the list statement it ran. */
async function pageStatement(c: ListCase, page: string) {
  const connection = `${withPage(c.field(rows), page)} { edges { cursor } }`;
  recorded.length = 0;
  const answer = await owner.graphql(`{ ${c.wrap ? c.wrap(rows, connection) : connection} }`, undefined, { environment: "sandbox" });
  expect(answer.body.errors, JSON.stringify(answer.body.errors)).toBeUndefined();
  const statements = recorded.filter((s) => s.text.includes(`from "${c.shape.table}"`) && /\blimit\b/i.test(s.text));
  expect(statements, `the list statement of ${c.name}`).toHaveLength(1);
  return statements[0]!;
}

describe.each(cases)("$name", (c) => {
  it.each(["first page", "after", "before", "last", "between"] as const)("%s: one index range in the list's order, on custom and generic plans", async (name) => {
    const statement = await pageStatement(c, pages(c.keys(rows))[name]);
    await expectSeeks(c.shape, statement, false);
    if (dialect === "postgresql") await expectSeeks(c.shape, statement, true);
  });
});

// A search (payment-search.ts) seeks the term of its word and reads that term's rows newest first
// in its primary key's order, each payment by its key: a page's worth, however many payments hold
// the word; a customer's name finds the payments of the matching customers on their index.
describe("payments searched by a word", () => {
  const statementsOf = async (word: string, page: string) => {
    recorded.length = 0;
    const answer = await owner.graphql(`{ payments(search: "${word}", ${page}) { edges { cursor } } }`, undefined, { environment: "sandbox" });
    expect(answer.body.errors, JSON.stringify(answer.body.errors)).toBeUndefined();
    const limited = recorded.filter((s) => /\blimit\b/i.test(s.text));
    return {
      byTerm: limited.filter((s) => s.text.includes('from "PaymentSearchTerm" as "t"')),
      byCustomer: limited.filter((s) => s.text.includes('"p"."customerId" = ')),
    };
  };
  // SQLite names a table by its alias in a plan, PostgreSQL by its name
  const alias = (table: string, as: string) => (dialect === "sqlite" ? as : table);
  const generics = () => (dialect === "postgresql" ? [false, true] : [false]);

  it.each(["first: 2", `first: 2, after: "CURSOR"`, `last: 2, before: "CURSOR"`])("%s: the term's key range in the list's order, each payment by key", async (page) => {
    // the start of an id: no customer holds it, so no customer's payments are read
    const { byTerm, byCustomer } = await statementsOf(rows.payments[1]!.slice(4, 10), page.replace("CURSOR", cursorOf(rows.payments[1]!)));
    expect(byTerm).toHaveLength(1);
    expect(byCustomer).toHaveLength(0);
    for (const generic of generics()) {
      const statement = byTerm[0]!;
      const plan = await planOf(statement.text, statement.params, alias("PaymentSearchTerm", "t"), generic);
      const why = `${statement.text}\n${plan.lines.join("\n")}`;
      expect(plan.fullScan, why).toBe(false);
      expect(plan.sort, why).toBe(false);
      expect(plan.seeks, why).toHaveLength(1);
      for (const column of [...scoped, "term"]) expect(holds(plan.seeks[0]!, column), `${column} sought in: ${why}`).toBe(true);
      // the payments are read by key, not by walking one of the caller's lists
      const payments = await planOf(statement.text, statement.params, alias("Payment", "p"), generic);
      expect(payments.fullScan, why).toBe(false);
      expect(payments.lines.filter((l) => /(SEARCH|Scan) (p|Payment) .*Payment_organizationId_/.test(l)), why).toEqual([]);
    }
  });

  it("a customer's name: each matching customer's payments on the customer index, in order", async () => {
    const { byCustomer } = await statementsOf("ada", "first: 2");
    expect(byCustomer).toHaveLength(rows.customers.length);
    for (const generic of generics()) {
      for (const statement of byCustomer) {
        const plan = await planOf(statement.text, statement.params, alias("Payment", "p"), generic);
        const why = `${statement.text}\n${plan.lines.join("\n")}`;
        expect(plan.fullScan, why).toBe(false);
        expect(plan.sort, why).toBe(false);
        expect(plan.seeks.some((seek) => holds(seek, "customerId")), why).toBe(true);
      }
    }
  });
});

afterAll(async () => {
  sqlite?.close();
  await postgres?.end();
});
