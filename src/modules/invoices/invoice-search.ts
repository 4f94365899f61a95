// The invoices search as a merchant types it (#27 item 8): a part of the invoice's id (with or
// without `inv_`) or number, of its description, of a line item's text or of a metadata value, of
// its customer's name or email (the customer's current ones), or its amount as typed ("12.5" finds
// 12.5000000). Several words: each must be found, in any of these. Newest first, with the list's
// other filters and paging (invoices.store.ts).
//
// Why no table of terms, as payments have (payment-search.ts): invoices are few per merchant (each is
// a bill a person drafts, or one per customer per period), payments many (every checkout, link and
// API call makes one, invoices' included). So the list is read as it always is, newest first on its
// index, and each invoice tested in place until a page has matched: a rare word reads all of the
// merchant's invoices (bench/README.md: 20,000 in ~0.1-0.3 s on a loaded machine; past hundreds of
// thousands, the payments' design would pay).
// Creating an invoice writes nothing more, nothing needs backfilling, and a line item or customer
// changed later is found as it is now.
import type { Expression, ExpressionBuilder, SqlBool } from "kysely";
import { sql } from "kysely";
import { containing, holdsLower } from "../../db/like.ts";
import type { DB } from "../../db/typed-sql.ts";
import { AMOUNT_PATTERN, toStroops } from "../../shared/money.ts";
import { customersHolding } from "../customers/customers.store.ts";
import { MAX_SEARCH_LENGTH, MAX_SEARCH_WORDS, tooLong, tooManyWords } from "../payments/payment-search.ts";

/** What no amount is: a word that is no amount is sought with it (one statement for every search of as many words). */
const NO_AMOUNT = "-1";

/** The list's filters a search becomes: word i as `search<i>` (its LIKE pattern) and `amount<i>` (its stroops). */
export type SearchFilters = Record<`search${number}` | `amount${number}`, string>;

/** A search's words as the list's filters (none for an empty search). */
export function invoiceSearchFilters(search: string | null | undefined): SearchFilters {
  if (!search) return {};
  if (search.length > MAX_SEARCH_LENGTH) throw tooLong();
  const words = [...new Set(search.trim().toLowerCase().split(/\s+/).filter(Boolean))];
  if (words.length > MAX_SEARCH_WORDS) throw tooManyWords();
  const filters: SearchFilters = {};
  words.forEach((word, i) => {
    filters[`search${i}`] = containing(word.replace(/^inv_/, ""));
    filters[`amount${i}`] = AMOUNT_PATTERN.test(word) ? toStroops(word).toString() : NO_AMOUNT;
  });
  return filters;
}

/**
 * The invoice holds every word of the search, given the list's filters as stand-ins: each given
 * `search<i>` is one word (with its `amount<i>`).
 */
export function matchesSearch(
  eb: ExpressionBuilder<DB, "Invoice">,
  filters: Record<string, unknown> & { organizationId: unknown; environment: unknown },
): Expression<SqlBool>[] {
  const words = Object.keys(filters).filter((name) => /^search\d+$/.test(name));
  return words.map((name) => {
    const pattern = filters[name];
    const amount = filters[name.replace("search", "amount")];
    return eb.or([
      ...(["Invoice.id", "Invoice.invoiceNumber", "Invoice.description", "Invoice.metadata"] as const).map((column) => holdsLower(eb.ref(column), pattern)),
      eb("Invoice.amount", "=", sql<bigint>`cast(${amount} as bigint)`),
      eb.exists(
        eb
          .selectFrom("InvoiceItem")
          .select(sql.lit(1).as("one"))
          .whereRef("InvoiceItem.invoiceId", "=", "Invoice.id")
          .where((item) => holdsLower(item.ref("InvoiceItem.description"), pattern)),
      ),
      eb("Invoice.customerId", "in", customersHolding(eb as never, filters, pattern)),
    ]);
  });
}
