// Typed SQL: queries written with Kysely against the tables of the Prisma schema (prisma-kysely
// generates src/generated/kysely-types.ts from it, so a renamed column fails to compile), compiled by
// the dialect's own compiler and run by direct-sql.ts as prepared statements: the same query shape
// gives the same text, which each connection prepares once and reuses. Kysely only builds text here;
// it never connects (DummyDriver). Rows come back as Prisma returns them (rowConverter of the
// query's table), so a reader may use Prisma or typed SQL and its callers cannot tell
// (test/typed-sql.test.ts keeps the two in agreement).
//
// Building and compiling a query costs 25-100 µs, a large share of a hot request, so a query whose
// shape is fixed is built once per dialect with `preparedQuery` and only its parameters change per
// call; `all`/`first` build each time, for shapes that depend on the values (optional filters).
import {
  type Compilable,
  type CompiledQuery,
  DummyDriver,
  type Insertable,
  Kysely,
  type OperationNode,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type RawBuilder,
  type SqlBool,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
} from "kysely";
import type { Dialect } from "../config.ts";
import type { DB } from "../generated/kysely-types.ts";
import { getDatamodel } from "../generated/pothos-types.ts";
import { type DirectSql, type Row, type Statement, rowConverter } from "./direct-sql.ts";

export type { DB };
export type QueryBuilder = Kysely<DB>;

const builders: Record<Dialect, QueryBuilder> = {
  sqlite: new Kysely<DB>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new SqliteIntrospector(db),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  }),
  postgresql: new Kysely<DB>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  }),
};

export interface TypedSql {
  /** the query builder of this database's dialect */
  q: QueryBuilder;
  dialect: Dialect;
  /** the prepared-statement connections it runs on */
  direct: DirectSql;
  /** the rows of a query, as Prisma returns its table's model */
  all<R>(query: Compilable<R>): Promise<R[]>;
  /** the first row, or null */
  first<R>(query: Compilable<R>): Promise<R | null>;
  /** a query as one step of a DirectSql batch (writes, in one transaction with the others) */
  statement(query: Compilable, options?: Pick<Statement, "expect">): Statement;
  /** rows a batch step returned (RETURNING), as Prisma returns the step's table's model */
  rowsOf<R>(query: Compilable<R>, rows: Row[]): R[];
}

export function typedSqlOn(sql: DirectSql): TypedSql {
  const q = builders[sql.dialect];
  const convert = <R>(compiled: CompiledQuery, rows: Row[]) => {
    const toModel = converterOf(compiled.query);
    return rows.map((row) => toModel(row) as R);
  };
  const all = async <R>(query: Compilable<R>): Promise<R[]> => {
    const compiled = query.compile();
    return convert<R>(compiled, await sql.all(compiled.sql, compiled.parameters as unknown[]));
  };
  return {
    q,
    dialect: sql.dialect,
    direct: sql,
    all,
    first: async (query) => (await all(query))[0] ?? null,
    statement(query, options) {
      const compiled = query.compile();
      const plain = insertsOnly(compiled) && !options?.expect;
      return { text: compiled.sql, params: compiled.parameters as unknown[], ...options, ...(plain ? { insertsOnly: true as const } : {}) };
    },
    rowsOf: (query, rows) => convert(query.compile(), rows),
  };
}

/** The named parameters of a prepared query: stand-ins at build time, values at each call. */
export type Params = Record<string, unknown>;

export interface PreparedQuery<P extends Params, R> {
  all(sql: TypedSql, params: P): Promise<R[]>;
  first(sql: TypedSql, params: P): Promise<R | null>;
  /** as one step of a DirectSql batch */
  statement(sql: TypedSql, params: P, options?: Pick<Statement, "expect">): Statement;
  /** the rows its batch step returned (RETURNING), as Prisma returns the query's table's model */
  rowsOf(sql: TypedSql, rows: Row[]): R[];
}

interface Compiled {
  text: string;
  /** each parameter: the name of a call's parameter, or a constant the query was built with */
  slots: ({ name: string } | { constant: unknown })[];
  convert: (row: Row) => unknown;
  insertsOnly: boolean;
}

/**
 * A query of fixed shape, built and compiled once per dialect. `build` receives stand-ins for the
 * parameters: it may place them as values anywhere, but must not look at them or branch on them.
 */
export function preparedQuery<P extends Params, R>(build: (q: QueryBuilder, params: P) => Compilable<R>): PreparedQuery<P, R> {
  const compiled = new Map<Dialect, Compiled>();
  const compile = (dialect: Dialect): Compiled => {
    let entry = compiled.get(dialect);
    if (entry) return entry;
    const standIns = new Map<unknown, string>();
    const params = new Proxy({} as P, {
      get(_, name) {
        const standIn = Symbol(String(name));
        standIns.set(standIn, String(name));
        return standIn;
      },
    });
    const query = build(builders[dialect], params).compile();
    entry = {
      text: query.sql,
      slots: query.parameters.map((value) => (standIns.has(value) ? { name: standIns.get(value)! } : { constant: value })),
      convert: converterOf(query.query),
      insertsOnly: insertsOnly(query),
    };
    compiled.set(dialect, entry);
    return entry;
  };
  const bind = (entry: Compiled, params: P) => entry.slots.map((slot) => ("name" in slot ? params[slot.name] : slot.constant));
  const all = async (sql: TypedSql, params: P) => {
    const entry = compile(sql.dialect);
    return (await sql.direct.all(entry.text, bind(entry, params))).map((row) => entry.convert(row) as R);
  };
  return {
    all,
    first: async (sql, params) => (await all(sql, params))[0] ?? null,
    statement(sql, params, options) {
      const entry = compile(sql.dialect);
      return { text: entry.text, params: bind(entry, params), ...options, ...(entry.insertsOnly && !options?.expect ? { insertsOnly: true as const } : {}) };
    },
    rowsOf: (sql, rows) => rows.map((row) => compile(sql.dialect).convert(row) as R),
  };
}

/** The dialect a prepared query is being built for, where the two spell something differently. */
export const dialectOf = (q: QueryBuilder): Dialect => (q === builders.postgresql ? "postgresql" : "sqlite");

/**
 * `column` is one of a list given as ONE parameter, `sql.direct.listParam(values)`: the query keeps
 * one text whatever the list's length, so it stays prepared (PostgreSQL takes an array, SQLite JSON).
 */
export function inListParam(q: QueryBuilder, column: string, list: unknown): RawBuilder<SqlBool> {
  return dialectOf(q) === "postgresql"
    ? sql<SqlBool>`${sql.ref(column)} = ANY(${list})`
    : sql<SqlBool>`${sql.ref(column)} IN (SELECT value FROM json_each(${list}))`;
}

/**
 * Rows given as ONE parameter, `JSON.stringify(rows)`, as a table to update or join from (alias it
 * with `.as(name)`): the query keeps one text whatever the number of rows, so it stays prepared.
 * `columns`: each column's PostgreSQL type; bigints travel as strings (JSON has no int64).
 */
export function jsonRows<R extends Record<string, unknown>>(q: QueryBuilder, rows: unknown, columns: Record<keyof R & string, string>): RawBuilder<R> {
  const names = Object.keys(columns) as (keyof R & string)[];
  const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
  if (dialectOf(q) === "postgresql") {
    const definitions = names.map((name) => `${quote(name)} ${columns[name]}`).join(", ");
    return sql<R>`(SELECT * FROM json_to_recordset(${rows}::json) AS r(${sql.raw(definitions)}))`;
  }
  const values = names.map((name) => {
    const value = `value ->> '${name.replace(/'/g, "''")}'`;
    return `${columns[name] === "bigint" ? `CAST(${value} AS INTEGER)` : value} AS ${quote(name)}`;
  });
  return sql<R>`(SELECT ${sql.raw(values.join(", "))} FROM json_each(${rows}))`;
}

/**
 * An INSERT of any number of rows given as ONE parameter, `JSON.stringify(rows)` (see jsonRows): one
 * prepared text, one statement, however many rows. Dates as `sql.direct.storedDate` writes them.
 */
export function insertJsonRows<T extends keyof DB>(table: T, columns: Record<string, string>): PreparedQuery<{ rows: string }, never> {
  const names = Object.keys(columns);
  return preparedQuery((q, p: { rows: string }) =>
    q
      .insertInto(table)
      .columns(names as never)
      .expression(q.selectFrom(jsonRows(q, p.rows, columns).as("r")).select(names as never) as never),
  ) as PreparedQuery<{ rows: string }, never>;
}

/** An INSERT that returns nothing, whatever the number of its rows (DirectSql's `insertsOnly`). */
const insertsOnly = (compiled: CompiledQuery) => compiled.query.kind === "InsertQueryNode" && !(compiled.query as { returning?: unknown }).returning;

const converters = new Map<string, (row: Row | undefined) => unknown>();

const asTheDriverGaveIt = (row: Row) => row;

/**
 * The converter of the table a query reads from, inserts into or updates (its first, for joins);
 * a query of no table (`selectNoFrom`) has its rows as the driver gave them.
 */
function converterOf(node: OperationNode): (row: Row) => unknown {
  if (node.kind === "SelectQueryNode" && !(node as { from?: unknown }).from) return asTheDriverGaveIt;
  const table = tableOf(node);
  let converter = converters.get(table);
  if (!converter) converters.set(table, (converter = rowConverter(table)));
  return converter as (row: Row) => unknown;
}

function tableOf(node: OperationNode): string {
  const n = node as unknown as {
    from?: { froms: OperationNode[] };
    into?: OperationNode;
    table?: OperationNode | { table: { identifier: { name: string } } };
  };
  // An UPDATE's table is its own, whatever it reads FROM.
  const target = node.kind === "UpdateQueryNode" ? n.table : (n.from?.froms[0] ?? n.into ?? n.table);
  if (!target) throw new Error(`typed-sql: no table in a ${node.kind}`);
  const named = target as { kind: string; table?: { identifier: { name: string } }; node?: OperationNode };
  if (named.kind === "AliasNode" && named.node) return tableOf({ kind: "SelectQueryNode", from: { froms: [named.node] } } as unknown as OperationNode);
  if (named.table) return named.table.identifier.name;
  throw new Error(`typed-sql: cannot tell the table of a ${node.kind}`);
}

/**
 * Every column of `table` as the prepared query's parameter of the same name: the values of an
 * INSERT of a whole row, `q.insertInto(table).values(everyColumn(table, p))`, called with the row.
 */
export function everyColumn<T extends keyof DB>(table: T, params: Params): Insertable<DB[T]> {
  const fields = getDatamodel().datamodel.models[table as "Payment"]!.fields.filter((field) => field.kind === "scalar");
  return Object.fromEntries(fields.map((field) => [field.name, params[field.name]])) as Insertable<DB[T]>;
}
