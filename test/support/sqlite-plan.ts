// EXPLAIN QUERY PLAN of a statement as the app sends it to SQLite (src/db/direct-sql.ts): `$n`
// placeholders become `?`, bound in their order, and values go in their stored forms.
import type BetterSqlite3 from "better-sqlite3";

/** The plan's lines (`detail` of each node), e.g. "SEARCH Payment USING INDEX ... (id=?)". */
export function sqlitePlan(db: BetterSqlite3.Database, text: string, params: unknown[]): string[] {
  const numbered = [...text.matchAll(/\$(\d+)/g)].map((m) => params[Number(m[1]) - 1]);
  const values = (numbered.length ? numbered : params).map(bindable);
  return (db.prepare(`EXPLAIN QUERY PLAN ${text.replace(/\$\d+/g, "?")}`).all(...values) as { detail: string }[]).map((r) => r.detail);
}

/** A parameter as better-sqlite3 binds it (the statements' own values are already stored forms, or these). */
function bindable(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === "boolean") return value ? 1 : 0;
  return value ?? null;
}
