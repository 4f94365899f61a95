// One page of a list, for every list of both doors: REST's `limit` / `starting_after` /
// `ending_before` (src/shared/pagination.ts) and GraphQL's Relay `first` / `after` / `last` /
// `before` (src/graphql/connection.ts) both become a PageRequest. Newest first, ordered by
// (createdAt, id) so that rows created in the same millisecond still have a stable place.
//
// Each resource defines its list once, in its store, with `listOf`: its table and its filter, ONE
// function that both doors' arguments go through. Lists are on hot paths (GET /payments), so their
// SQL is typed and prepared: a list's statement depends only on which of its filters are given,
// which cursors bound it and its direction, so each such shape is built once per dialect
// (preparedQuery) and each call only binds values.
import type { Expression, ExpressionBuilder, Kysely, Selectable, SqlBool } from "kysely";
import type { Scope } from "../context.ts";
import { badRequest } from "../errors.ts";
import { type DB, type Params, type PreparedQuery, type QueryBuilder, type TypedSql, preparedQuery } from "./typed-sql.ts";

/** A row a page starts after or ends before, and the argument that named it (for the error if it names none). */
export interface Cursor {
  /** the row's key (its id) */
  key: string;
  argument: string;
}

export interface PageRequest {
  /** at most this many rows */
  limit: number;
  /** only rows older than this one: REST's starting_after, GraphQL's after */
  after?: Cursor;
  /** only rows newer than this one: REST's ending_before, GraphQL's before */
  before?: Cursor;
  /** the rows next to `before` (or the oldest) instead of next to `after` (or the newest): REST's ending_before, GraphQL's last */
  fromBefore?: boolean;
}

export interface Page<T> {
  /** newest first */
  items: T[];
  /** more rows lie beyond the page, on the side it was read towards */
  hasMore: boolean;
}

/** A list's filters by name. Not given: undefined or null (GraphQL's way of leaving one out). */
export type Filters<F> = { [K in keyof F]: string | boolean | Date | null | undefined };

/** A list's filters with the caller's organization and environment, which confine every list of theirs. */
export type InScope<F> = F & Pick<Scope, "organizationId" | "environment">;

/** The filters a list's statement is built with: those given, each as a stand-in for its value (absent: undefined). */
export type GivenFilters<F extends Filters<F>> = { [K in keyof F]: Exclude<F[K], null> };

interface ListDefinition<T extends keyof DB, F extends Filters<F>> {
  table: T;
  /**
   * The rows the list shows, given the filters. It may test whether a filter is given and place it
   * as a value, never look at the value (the statement is built once for all values).
   */
  where(eb: ExpressionBuilder<DB, T>, filters: GivenFilters<F>): Expression<SqlBool>;
  /** the columns that order it, newest first (default createdAt, then id) */
  order?: { time: keyof DB[T] & string; key: keyof DB[T] & string };
  /**
   * Filters that bound the order's time: rows from `from` (inclusive) until `to` (exclusive). They
   * are not `where`'s: each is merged with the cursor on its side into one row-value bound, since
   * a planner seeks one range per column (SQLite, given `time >= ?` and a cursor's `(time, key) <
   * (?, ?)`, sought the period and walked it to the cursor).
   */
  period?: { from: keyof F & string; to: keyof F & string };
}

/** A list's reader: one page of the rows the filters select. */
export type List<T extends keyof DB, F extends Filters<F>> = (sql: TypedSql, filters: F, request: PageRequest) => Promise<Page<Selectable<DB[T]>>>;

const isGiven = (value: unknown) => value !== undefined && value !== null;

/** A place in a list's order: a row's (time, key), or a time's edge ("" sorts before every key). */
interface Position {
  time: unknown;
  key: unknown;
}

/** A value per shape, made the first time its shape is asked for (shapes are few: see above). */
function perShape<V>(): (shape: string, make: () => V) => V {
  const made = new Map<string, V>();
  return (shape, make) => {
    let value = made.get(shape);
    if (value === undefined) made.set(shape, (value = make()));
    return value;
  };
}

export function listOf<T extends keyof DB, F extends Filters<F>>(definition: ListDefinition<T, F>): List<T, F> {
  const { table } = definition;
  const { time, key }: { time: string; key: string } = definition.order ?? { time: "createdAt", key: "id" };
  const period: string[] = definition.period ? [definition.period.from, definition.period.to] : [];
  type Row = Selectable<DB[T]>;
  // Built without the types of one table in particular: `where` is typed for its own table.
  const from = (q: QueryBuilder) => (q as unknown as Kysely<Record<string, Record<string, unknown>>>).selectFrom(table as string);
  const filtered = (given: string[], p: Params) => (eb: ExpressionBuilder<DB, T>) =>
    definition.where(eb, Object.fromEntries(given.map((name) => [name, p[name]])) as GivenFilters<F>);

  /** the position (time and key) of a cursor's row, if it is one of the list's (in its period too) */
  const cursorQueries = perShape<PreparedQuery<Params, Row>>();
  const cursorQuery = (given: string[], periodGiven: string[]) =>
    cursorQueries(`${given.join()}|${periodGiven.join()}`, () =>
      preparedQuery((q, p: Params) =>
        from(q)
          .select([time, key])
          .where(key, "=", p.$cursor)
          .where(filtered(given, p) as never)
          .where((eb) =>
            eb.and(periodGiven.map((name) => eb(time, name === definition.period?.from ? ">=" : "<", p[name]))),
          ),
      ) as PreparedQuery<Params, Row>,
    );

  const pageQueries = perShape<PreparedQuery<Params, Row>>();
  const pageQuery = (given: string[], upper: boolean, lower: boolean, fromBefore: boolean | undefined) =>
    pageQueries(`${given.join()}|${upper ? "upper" : ""}|${lower ? "lower" : ""}|${fromBefore ? "up" : "down"}`, () => {
      const direction = fromBefore ? "asc" : "desc";
      return preparedQuery((q, p: Params) =>
        from(q)
          .selectAll()
          .where((eb) =>
            eb.and([
              filtered(given, p)(eb as never),
              ...(upper ? [eb(eb.refTuple(time, key), "<", eb.tuple(p.$upperTime, p.$upperKey))] : []),
              ...(lower ? [eb(eb.refTuple(time, key), ">", eb.tuple(p.$lowerTime, p.$lowerKey))] : []),
            ]),
          )
          .orderBy(time, direction)
          .orderBy(key, direction)
          .limit(p.$limit as number),
      ) as PreparedQuery<Params, Row>;
    });

  return async (sql, filters, request) => {
    const values = filters as Record<string, unknown>;
    const named = Object.keys(values).filter((name) => isGiven(values[name])).sort();
    const given = named.filter((name) => !period.includes(name));
    const periodGiven = named.filter((name) => period.includes(name));
    const params: Params = {};
    for (const name of named) params[name] = values[name];
    const cursors: Partial<Record<"after" | "before", Position>> = {};
    for (const [side, cursor] of [["after", request.after], ["before", request.before]] as const) {
      if (!cursor) continue;
      const position = await cursorQuery(given, periodGiven).first(sql, { ...params, $cursor: cursor.key });
      if (!position) throw badRequest(`${cursor.argument} names no object of this list`);
      cursors[side] = { time: position[time as keyof Row], key: position[key as keyof Row] };
    }
    // A period's edges as positions: (to, "") is below every row at `to`, (from, "") below every row at `from`.
    const edge = (name: string | undefined) => (name && isGiven(values[name]) ? { time: values[name], key: "" } : undefined);
    // Newest first: `after` or the period's end bounds the rows from above, `before` or its start
    // from below. A cursor's row lies in the period (its query checks), so it bounds tighter.
    const upper = cursors.after ?? edge(definition.period?.to);
    const lower = cursors.before ?? edge(definition.period?.from);
    if (upper) Object.assign(params, { $upperTime: upper.time, $upperKey: upper.key });
    if (lower) Object.assign(params, { $lowerTime: lower.time, $lowerKey: lower.key });
    // One more than asked: whether it comes back says whether more follow.
    params.$limit = request.limit + 1;
    const rows = await pageQuery(given, !!upper, !!lower, request.fromBefore).all(sql, params);
    const items = rows.length > request.limit ? rows.slice(0, request.limit) : rows;
    return { items: request.fromBefore ? items.reverse() : items, hasMore: rows.length > request.limit };
  };
}
