// One Prisma client type for both dialects: the two generated clients have the same models, so the
// PostgreSQL one is used through the SQLite one's type.
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "../generated/sqlite/client.ts";
import { PrismaClient as PgPrismaClient } from "../generated/postgresql/client.ts";
import type { Dialect } from "../config.ts";
import { DURABLE_SQLITE_SYNC, type DirectSql, openDirectSql } from "./direct-sql.ts";
import { type TypedSql, typedSqlOn } from "./typed-sql.ts";

export type Db = PrismaClient;
/** What a service may use inside `db.$transaction(async (tx) => ...)`. */
export type Tx = Omit<Db, "$connect" | "$disconnect" | "$on" | "$transaction" | "$extends">;

export interface Database {
  db: Db;
  dialect: Dialect;
  close(): Promise<void>;
}

export function sqlitePath(url: string): string {
  return url.slice("file:".length).split("?")[0]!;
}

/** For PostgreSQL, `?schema=name` selects the schema (the tests give each file its own). */
export function postgresSchema(url: string): string {
  return new URL(url).searchParams.get("schema") ?? "public";
}

/** Prisma's SQLite connection, committing as durably as direct-sql's writer (DURABLE_SQLITE_SYNC). */
class DurablePrismaBetterSQLite3 extends PrismaBetterSQLite3 {
  override async connect() {
    const adapter = await super.connect();
    await adapter.executeRaw({ sql: `PRAGMA synchronous = ${DURABLE_SQLITE_SYNC}`, args: [], argTypes: [] });
    return adapter;
  }
}

/**
 * How long a transaction waits for its connection before it fails. Prisma's 2 s failed a cold start
 * under load ("Unable to start a transaction in the given time" while PostgreSQL was busy opening the
 * pool's connections); a request that waits longer is still answered, not refused.
 */
const transactionOptions = { maxWait: 10_000 };

export function openDatabase(url: string): Database {
  if (url.startsWith("file:")) {
    const path = sqlitePath(url);
    mkdirSync(dirname(path), { recursive: true });
    // WAL lets readers run beside the writer; the busy timeout makes concurrent writers wait their
    // turn instead of failing.
    const adapter = new DurablePrismaBetterSQLite3({ url: path, timeout: 10_000 });
    return withDirectSql(new PrismaClient({ adapter, transactionOptions }), "sqlite", url);
  }
  const adapter = new PrismaPg({ connectionString: url, max: 20 }, { schema: postgresSchema(url) });
  return withDirectSql(new PgPrismaClient({ adapter, transactionOptions }) as unknown as Db, "postgresql", url);
}

// Each Prisma client is paired with its direct SQL connections, so services reach them through the
// `db` they already have.
const directConnections = new WeakMap<Db, DirectSql>();

export function directSql(db: Db): DirectSql {
  const sql = directConnections.get(db);
  if (!sql) throw new Error("no direct SQL for this Prisma client: open it with openDatabase");
  return sql;
}

const typedConnections = new WeakMap<Db, TypedSql>();

/** Typed SQL (Kysely) on the same prepared-statement connections as directSql. */
export function typedSql(db: Db): TypedSql {
  let typed = typedConnections.get(db);
  if (!typed) typedConnections.set(db, (typed = typedSqlOn(directSql(db))));
  return typed;
}

function withDirectSql(db: Db, dialect: Dialect, url: string): Database {
  const sql = openDirectSql(url, dialect === "sqlite" ? { sqlitePath: sqlitePath(url) } : { postgresSchema: postgresSchema(url) });
  directConnections.set(db, sql);
  return {
    db,
    dialect,
    close: async () => {
      await sql.close();
      await db.$disconnect();
    },
  };
}
