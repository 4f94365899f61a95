// "Holds this text, in any case" as every search writes it (customers, payments, invoices).
import { type Expression, type SqlBool, sql } from "kysely";

/** `text` as a LIKE pattern matching any value that holds it, lower case, its wildcards taken literally. */
export const containing = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The column (null: empty) holds what `pattern` (from containing()) matches. lower() on both sides:
 * PostgreSQL's LIKE is case-sensitive, SQLite's only for non-ASCII. `pattern` may be a prepared
 * statement's stand-in for the value.
 */
export const holdsLower = (column: Expression<unknown>, pattern: unknown) => sql<SqlBool>`lower(coalesce(${column}, '')) like ${pattern} escape '\\'`;
