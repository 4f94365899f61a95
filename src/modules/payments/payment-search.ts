// The payments search as a merchant types it (#27 item 8): the start (three characters or more) of a
// payment's id (with or without `pay_`), of a word of its description or of a metadata value, of its
// transaction hash, its amount ("12.5" finds 12.5000000), or a part of its customer's name or email; a
// word of one or two characters finds that whole word; several words must all match. Newest first,
// with the list's other filters and paging.
//
// Why a table of terms (PaymentSearchTerm) rather than pg_trgm / FTS5: a list is read newest first
// a page at a time, and a word such as "order" may be in every one of a million payments. Each
// term's rows are in the key (organization, environment, term, createdAt, paymentId), so a search
// seeks one term and reads its newest rows in order, stopping after a page whichever the number of
// payments holding it; a trigram index answers "which rows", all of them, that then must be sorted.
// Both databases get the same table and the same plan. The cost is paid at creation: every prefix
// of SHORTEST_PREFIX to SEARCH_PREFIX characters of each word is a row written in the payment's own
// insert (bench/README.md measures both). Payments made before SHORTEST_PREFIX keep their one- and
// two-character prefixes: a short word also finds them by a word's start. A longer word is sought
// by its first SEARCH_PREFIX characters and checked on the payment's row. The customer's name and
// email are matched on the customers (their current name, whatever it was when the payment was
// made), then the payments of those customers on their index. Payments made before this table
// existed get their terms from payment-search-backfill.ts.
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from "kysely";
import type { Payment } from "../../generated/sqlite/client.ts";
import { type Db, typedSql } from "../../db/client.ts";
import { containing, holdsLower } from "../../db/like.ts";
import type { Statement } from "../../db/direct-sql.ts";
import { type DB, type TypedSql, dialectOf, jsonRows, preparedQuery } from "../../db/typed-sql.ts";
import type { Cursor, Page, PageRequest } from "../../db/list-page.ts";
import { badRequest } from "../../errors.ts";
import { AMOUNT_PATTERN, formatStroops, toStroops } from "../../shared/money.ts";
import type { ServiceContext } from "../../context.ts";
import { customersHolding } from "../customers/customers.store.ts";

/** Terms are the prefixes of a word up to this many characters; a longer word is checked on the row. */
export const SEARCH_PREFIX = 8;
/** The shortest prefix that is a term (see prefixesOf). */
const SHORTEST_PREFIX = 3;
/** The longest search accepted (a transaction hash is 64, an email at most 320 but a part is enough). */
export const MAX_SEARCH_LENGTH = 200;
/** The most words a search may have (each is one more condition on every row read). */
export const MAX_SEARCH_WORDS = 8;
/** Past this many customers matching a word, their payments are read in the list's order (searchPayments). */
const MANY_CUSTOMERS = 100;
/** A word's term rows are counted up to this many to tell the rarest word of a search. */
const COUNTED = 1000;
/** What one matching customer weighs against one term row when telling the rarest word (its payments). */
const CUSTOMER_COST = 10;
/** The most terms kept for one payment: 50 metadata values of 500 characters would be thousands. */
const MAX_TERMS = 300;

/** Words of a text as terms see them: lower case, split at anything that is not a letter or digit. */
const wordsOf = (text: string): string[] => text.normalize("NFKC").toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);

/** An amount as a term: its decimal without trailing zeros ("12.5000000" -> "12.5", "3.0000000" -> "3"). */
const amountTerm = (stroops: bigint) => formatStroops(stroops).replace(/\.?0+$/, "");

/** The term of exactly this amount ("=" is in no word). */
const exactAmountTerm = (stroops: bigint) => `=${amountTerm(stroops)}`;

/**
 * A word's terms: its starts of SHORTEST_PREFIX to SEARCH_PREFIX characters, or the whole of a shorter
 * word. A start of one or two characters would find nearly every payment (and was a third of each
 * create's rows: bench/README.md), so, as Stripe's search asks three characters of a part of a word,
 * a search word of one or two characters finds only that whole word ("5", "12", "uk").
 */
const prefixesOf = (word: string) =>
  word.length < SHORTEST_PREFIX
    ? [word]
    : Array.from({ length: Math.min(word.length, SEARCH_PREFIX) - SHORTEST_PREFIX + 1 }, (_, i) => word.slice(0, SHORTEST_PREFIX + i));

const metadataValues = (metadata: string | null): string[] => {
  if (!metadata) return [];
  const parsed = JSON.parse(metadata) as Record<string, unknown>;
  return Object.values(parsed).filter((value): value is string => typeof value === "string");
};

/** The terms of a payment's own fields (its customer is matched on the customers). */
export function searchTermsOf(payment: Pick<Payment, "id" | "description" | "metadata" | "amount" | "txHash">): string[] {
  const words = [
    ...wordsOf(payment.id.replace(/^pay_/, "")),
    amountTerm(payment.amount),
    ...(payment.txHash ? wordsOf(payment.txHash) : []),
    ...wordsOf(payment.description ?? ""),
    ...metadataValues(payment.metadata).flatMap(wordsOf),
  ];
  // the whole amount, for an amount typed with its decimal point: one term, however many amounts share its start
  const terms = new Set<string>([exactAmountTerm(payment.amount)]);
  for (const word of words) {
    for (const prefix of prefixesOf(word)) {
      if (terms.size === MAX_TERMS) return [...terms];
      terms.add(prefix);
    }
  }
  return [...terms];
}

type TermRow = { organizationId: string; environment: string; term: string; createdAt: string; paymentId: string };
type TermSource = Pick<Payment, "id" | "organizationId" | "environment" | "createdAt" | "description" | "metadata" | "amount" | "txHash">;

/** The rows of PaymentSearchTerm for these terms of a payment (dates as the database stores them). */
export function searchTermRows(db: { storedDate(date: Date): string }, payment: TermSource, terms = searchTermsOf(payment)): TermRow[] {
  const { id: paymentId, organizationId, environment } = payment;
  const createdAt = db.storedDate(payment.createdAt);
  return terms.map((term) => ({ organizationId, environment, term, createdAt, paymentId }));
}

const TERM_COLUMNS = { organizationId: "text", environment: "text", term: "text", createdAt: "timestamp", paymentId: "text" };

const insertTerms = preparedQuery((q, p: { rows: string }) =>
  q
    .insertInto("PaymentSearchTerm")
    .columns(Object.keys(TERM_COLUMNS) as never)
    // `WHERE true`: SQLite would read the ON of ON CONFLICT as the join's of an INSERT ... SELECT
    .expression(q.selectFrom(jsonRows(q, p.rows, TERM_COLUMNS).as("r")).select(Object.keys(TERM_COLUMNS) as never).where(sql<SqlBool>`true`) as never)
    // a completion's hash may share a prefix ("1", "a") with a word the payment already had
    .onConflict((oc) => oc.doNothing()),
);

/** One INSERT of the search terms of these payments (written in the same batch as what made them). */
export function insertSearchTermsStatement(db: Db, payments: TermSource[], termsOf: (p: TermSource) => string[] = searchTermsOf): Statement {
  const typed = typedSql(db);
  const rows = payments.flatMap((payment) => searchTermRows(typed.direct, payment, termsOf(payment)));
  return insertTerms.statement(typed, { rows: JSON.stringify(rows) });
}

/**
 * A new payment's terms: its scope, time and id bound once and the terms as one list parameter, so
 * the database reads one short string per row instead of a JSON object of five fields, and with no
 * ON CONFLICT (a new payment's terms are distinct and its id new). The terms are most of a create's
 * writing (23 rows for the bench's payment): this form cut SQLite's time for them by ~35 %.
 */
const insertNewPaymentTerms = preparedQuery((q, p: { organizationId: string; environment: string; createdAt: string; paymentId: string; terms: unknown }) => {
  const postgres = dialectOf(q) === "postgresql";
  const terms = postgres ? sql`unnest(cast(${p.terms} as text[]))` : sql`json_each(${p.terms})`;
  return q
    .insertInto("PaymentSearchTerm")
    .columns(Object.keys(TERM_COLUMNS) as never)
    .expression(
      q.selectFrom(terms.as("t")).select([
        sql<string>`${p.organizationId}`.as("organizationId"),
        sql<string>`${p.environment}`.as("environment"),
        sql.ref<string>(postgres ? "t.t" : "t.value").as("term"),
        (postgres ? sql<string>`cast(${p.createdAt} as timestamp(3))` : sql<string>`${p.createdAt}`).as("createdAt"),
        sql<string>`${p.paymentId}`.as("paymentId"),
      ]) as never,
    );
});

/** The INSERT of a new payment's search terms (written in the payment's own batch). */
export function insertNewPaymentTermsStatement(db: Db, payment: TermSource): Statement {
  const typed = typedSql(db);
  const { id: paymentId, organizationId, environment } = payment;
  const createdAt = typed.direct.storedDate(payment.createdAt);
  return insertNewPaymentTerms.statement(typed, { organizationId, environment, createdAt, paymentId, terms: typed.direct.listParam(searchTermsOf(payment)) });
}

/** The terms a completion adds: its transaction hash's (the rest were written at creation). */
export const hashTermsOf = (payment: TermSource) => (payment.txHash ? wordsOf(payment.txHash).flatMap(prefixesOf) : []);

// ---- the search

/** One word of a search, as rows are sought and checked. */
interface Word {
  /** the term sought: the word's first SEARCH_PREFIX characters */
  term: string;
  /** the whole word, checked on the row when the term is only its start */
  longer: string | null;
  /** a part of a customer's name or email (none for an amount) */
  customerPart: string | null;
}

/** The answers to a search too long or of too many words (the invoices' search says the same). */
export const tooLong = () =>
  badRequest(`search must be at most ${MAX_SEARCH_LENGTH} characters`, { path: ["search"], problem: `must be at most ${MAX_SEARCH_LENGTH} characters` });
export const tooManyWords = () =>
  badRequest(`search must have at most ${MAX_SEARCH_WORDS} words`, { path: ["search"], problem: `must have at most ${MAX_SEARCH_WORDS} words` });

/** A search's words (empty: it finds nothing in particular, so it is no search). */
export function parseSearch(search: string): { words: Word[]; exact: string | null } {
  if (search.length > MAX_SEARCH_LENGTH) throw tooLong();
  const typed = search.trim().split(/\s+/).filter(Boolean);
  const words: Word[] = [];
  for (const raw of typed) {
    if (AMOUNT_PATTERN.test(raw) && raw.includes(".")) {
      words.push({ term: exactAmountTerm(toStroops(raw)), longer: null, customerPart: null });
      continue;
    }
    for (const word of wordsOf(raw.replace(/^pay_/i, ""))) {
      words.push({ term: word.slice(0, SEARCH_PREFIX), longer: word.length > SEARCH_PREFIX ? word : null, customerPart: word });
    }
  }
  const distinct = [...new Map(words.map((w) => [JSON.stringify([w.term, w.longer]), w])).values()];
  if (distinct.length > MAX_SEARCH_WORDS) throw tooManyWords();
  // One word as typed may be a whole id or hash: found by its own index too (payments made before
  // their terms were).
  return { words: distinct, exact: typed.length === 1 ? typed[0]! : null };
}

type P = ExpressionBuilder<DB & { p: DB["Payment"] }, "p">;

const likeLower = (column: Expression<unknown>, text: string) => holdsLower(column, containing(text));

/** The row holds the word's whole (the term sought was its start). */
function checkedOnRow(eb: P, word: Word): Expression<SqlBool>[] {
  const checks: Expression<SqlBool>[] = [];
  if (word.longer) {
    const { longer } = word;
    checks.push(eb.or((["p.id", "p.txHash", "p.description", "p.metadata"] as const).map((column) => likeLower(eb.ref(column), longer))));
  }
  return checks;
}

/** The payment `p` matches the word: one of its terms and the row's checks, or its customer. */
function matches(eb: P, scope: Scope, word: Word): Expression<SqlBool> {
  const byTerm = eb.and([
    eb.exists(
      eb
        .selectFrom("PaymentSearchTerm as w")
        .select(sql.lit(1).as("one"))
        .whereRef("w.organizationId", "=", "p.organizationId")
        .whereRef("w.environment", "=", "p.environment")
        .where("w.term", "=", word.term)
        .whereRef("w.createdAt", "=", "p.createdAt")
        .whereRef("w.paymentId", "=", "p.id"),
    ),
    ...checkedOnRow(eb, word),
  ]);
  return word.customerPart === null ? byTerm : eb.or([byTerm, eb("p.customerId", "in", customersHolding(eb as never, scope, containing(word.customerPart)))]);
}

type Scope = Pick<ServiceContext["scope"], "organizationId" | "environment">;

/** The list's filters other than the search (payments.store.ts PaymentFilters). */
export interface OtherFilters {
  status?: string | null;
  customerId?: string | null;
  createdFrom?: Date | null;
  createdTo?: Date | null;
}

interface Position {
  createdAt: Date;
  id: string;
}

/** Where a page lies in the newest-first order: below `upper` and above `lower` (each optional). */
interface Bounds {
  upper?: Position;
  lower?: Position;
}

const before = (a: Position, b: Position) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const lowest = (...positions: (Position | undefined)[]) => positions.filter((p) => p !== undefined).sort(before)[0];
const highest = (...positions: (Position | undefined)[]) => positions.filter((p) => p !== undefined).sort(before).at(-1);

/** The filters other than the search, and the page's bounds, on `p` (time and key given by `order`). */
function listConditions(eb: P, scope: Scope, filters: OtherFilters, bounds: Bounds, order: [string, string]): Expression<SqlBool>[] {
  const [time, key] = order;
  const position = (at: Position) => eb.tuple(at.createdAt, at.id) as never;
  return [
    eb("p.organizationId", "=", scope.organizationId),
    eb("p.environment", "=", scope.environment),
    ...(filters.status ? [eb("p.status", "=", filters.status)] : []),
    ...(filters.customerId ? [eb("p.customerId", "=", filters.customerId)] : []),
    ...(bounds.upper ? [eb(eb.refTuple(time as never, key as never), "<", position(bounds.upper))] : []),
    ...(bounds.lower ? [eb(eb.refTuple(time as never, key as never), ">", position(bounds.lower))] : []),
  ];
}

const positionOf = preparedQuery((q, p: { id: string; organizationId: string; environment: string }) =>
  q.selectFrom("Payment").select(["createdAt", "id"]).where("id", "=", p.id).where("organizationId", "=", p.organizationId).where("environment", "=", p.environment),
);

async function cursorPosition(typed: TypedSql, scope: Scope, cursor: Cursor | undefined): Promise<Position | undefined> {
  if (!cursor) return undefined;
  const row = await positionOf.first(typed, { id: cursor.key, ...scope });
  if (!row) throw badRequest(`${cursor.argument} names no object of this list`);
  return { createdAt: row.createdAt as Date, id: row.id };
}

/**
 * A page of the caller's payments matching `search` and the other filters. One word is sought (the
 * rarest): its term's rows newest first, its customers' payments
 * newest first, and (one word) the payment of that id or hash; the other words are checked on each
 * payment read. Each source reads at most a page past the bounds, in its index's order, and the page
 * is the newest of what they found: the top of a union is the top of its parts' tops.
 */
export async function searchPayments(ctx: ServiceContext, filters: OtherFilters & { search: string }, request: PageRequest): Promise<Page<Payment>> {
  const { words, exact } = parseSearch(filters.search);
  if (words.length === 0) return { items: [], hasMore: false };
  const typed = typedSql(ctx.db);
  const { scope } = ctx;
  // A period's edges as positions: (to, "") is below every row at `to`, (from, "") below every row at `from`.
  const bounds: Bounds = {
    upper: lowest(await cursorPosition(typed, scope, request.after), filters.createdTo ? { createdAt: filters.createdTo, id: "" } : undefined),
    lower: highest(await cursorPosition(typed, scope, request.before), filters.createdFrom ? { createdAt: filters.createdFrom, id: "" } : undefined),
  };
  const direction = request.fromBefore ? "asc" : "desc";
  const q = typed.q;
  // Each word's customers (a scan of the caller's customers, up to one past MANY_CUSTOMERS).
  const customersOf = new Map<Word, { id: string }[]>();
  for (const word of words) {
    if (word.customerPart !== null) customersOf.set(word, await typed.all(customersHolding(q, scope, containing(word.customerPart)).limit(MANY_CUSTOMERS + 1)));
  }
  // Sought: the rarest word, as far as a bounded count tells (its term's rows, up to COUNTED, and its
  // customers): each payment read is checked against the other words, so a common word sought with a
  // rare one would read most of the list.
  const termRows = new Map<Word, number>();
  for (const word of words) {
    const counted = q
      .selectFrom(
        q
          .selectFrom("PaymentSearchTerm")
          .select("paymentId")
          .where("organizationId", "=", scope.organizationId)
          .where("environment", "=", scope.environment)
          .where("term", "=", word.term)
          .limit(COUNTED)
          .as("some"),
      )
      .select((eb) => eb.fn.countAll<number>().as("n"));
    const { sql: text, parameters } = counted.compile();
    const [row] = await typed.direct.all(text, parameters as unknown[]);
    termRows.set(word, Number(row?.n ?? 0));
  }
  const cost = (word: Word) => termRows.get(word)! + CUSTOMER_COST * (customersOf.get(word)?.length ?? 0);
  const driver = words.reduce((best, word) => {
    const [a, b] = [cost(word), cost(best)];
    return a < b || (a === b && word.term.length > best.term.length) ? word : best;
  });
  const others = words.filter((word) => word !== driver);
  const take = request.limit + 1;
  const restOf = (eb: P, order: [string, string]) => [...listConditions(eb, scope, filters, bounds, order), ...others.map((word) => matches(eb, scope, word))];
  const paymentsIn = (ids: unknown) =>
    typed.all(q.selectFrom("Payment as p").selectAll("p").where("p.id", "in", ids as never)) as Promise<Payment[]>;

  // The term's rows lead (SQLite joins in the order written with CROSS JOIN), each payment read by key.
  const byTerm = q
    .selectFrom("PaymentSearchTerm as t")
    .crossJoin("Payment as p")
    .select("p.id")
    .where("t.organizationId", "=", scope.organizationId)
    .where("t.environment", "=", scope.environment)
    .where("t.term", "=", driver.term)
    .whereRef("p.id", "=", "t.paymentId")
    .where((eb) => eb.and([...restOf(eb as unknown as P, ["t.createdAt", "t.paymentId"]), ...checkedOnRow(eb as unknown as P, driver)]))
    .orderBy("t.createdAt", direction)
    .orderBy("t.paymentId", direction)
    .limit(take);
  const sources = [paymentsIn(byTerm)];
  if (driver.customerPart !== null) {
    const { customerPart } = driver;
    const customers = customersOf.get(driver)!;
    const ofCustomers = (customer: (eb: P) => Expression<SqlBool>) =>
      q
        .selectFrom("Payment as p")
        .select("p.id")
        .where((eb) => eb.and([customer(eb), ...restOf(eb, ["p.createdAt", "p.id"])]))
        .orderBy("p.createdAt", direction)
        .orderBy("p.id", direction)
        .limit(take);
    // A few customers: each one's payments on their own index (customer, time), in order. Many:
    // their payments are common enough that the list read in order meets a page of them soon.
    if (customers.length > MANY_CUSTOMERS) sources.push(paymentsIn(ofCustomers((eb) => eb("p.customerId", "in", customersHolding(eb as never, scope, containing(customerPart))))));
    else for (const { id } of customers) sources.push(paymentsIn(ofCustomers((eb) => eb("p.customerId", "=", id))));
  }
  if (exact !== null && others.length === 0) {
    // By the primary key or the hash's index alone, the rest checked here: given the scope in SQL,
    // a planner may walk the caller's list in order testing each payment against the key.
    const byKey = q.selectFrom("Payment as p").selectAll("p").where((eb) => eb.or([eb("p.id", "=", exact), eb("p.txHash", "=", exact)]));
    const inPage = (row: Payment) =>
      row.organizationId === scope.organizationId &&
      row.environment === scope.environment &&
      (!filters.status || row.status === filters.status) &&
      (!filters.customerId || row.customerId === filters.customerId) &&
      (!bounds.upper || before(row, bounds.upper) < 0) &&
      (!bounds.lower || before(row, bounds.lower) > 0);
    sources.push((typed.all(byKey) as Promise<Payment[]>).then((rows) => rows.filter(inPage)));
  }
  const found = new Map<string, Payment>();
  for (const rows of await Promise.all(sources)) for (const row of rows) found.set(row.id, row);
  const newestFirst = (a: Payment, b: Payment) => before(b, a);
  const sorted = [...found.values()].sort(request.fromBefore ? before : newestFirst).slice(0, take);
  const items = sorted.slice(0, request.limit);
  return { items: request.fromBefore ? items.reverse() : items, hasMore: sorted.length > request.limit };
}
