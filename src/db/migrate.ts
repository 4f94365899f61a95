// Applies the committed migration SQL of prisma/migrations/<dialect>/ in order, each once, recorded
// in _migrations. Runs at start and from `npm run db:migrate`; several processes starting at once
// are safe (PostgreSQL: an advisory lock; SQLite: an immediate transaction).
import { readdirSync, readFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { type Db, directSql, postgresSchema, sqlitePath } from "./client.ts";
import { DURABLE_SQLITE_SYNC } from "./direct-sql.ts";

const migrationsRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "prisma", "migrations");
const MIGRATION_LOCK_KEY = 7_265_431_001;

interface Migration {
  name: string;
  sql: string;
}

function migrationsFor(dialect: "sqlite" | "postgresql"): Migration[] {
  const dir = join(migrationsRoot, dialect);
  return migrationNames(dialect).map((name) => ({ name, sql: readFileSync(join(dir, name, "migration.sql"), "utf8") }));
}

/**
 * The committed migrations the database of `db` has not applied (readiness: a process whose code
 * expects a newer schema than the database has must not take traffic).
 */
export async function unappliedMigrations(db: Db): Promise<string[]> {
  const sql = directSql(db);
  const done = new Set((await sql.all(`SELECT "name" FROM "_migrations"`, [])).map((row) => row.name as string));
  return migrationNames(sql.dialect).filter((name) => !done.has(name));
}

const namesByDialect = new Map<"sqlite" | "postgresql", string[]>();
const migrationNames = (dialect: "sqlite" | "postgresql") => {
  let names = namesByDialect.get(dialect);
  if (!names) namesByDialect.set(dialect, (names = readdirSync(join(migrationsRoot, dialect)).sort()));
  return names;
};

/** Returns the names of the migrations it applied. */
export async function migrateDatabase(url: string): Promise<string[]> {
  return url.startsWith("file:") ? migrateSqlite(sqlitePath(url)) : migratePostgres(url);
}

function migrateSqlite(path: string): string[] {
  mkdirSync(dirname(path), { recursive: true });
  const db = new BetterSqlite3(path, { timeout: 10_000 });
  try {
    db.pragma("journal_mode = WAL");
    db.pragma(`synchronous = ${DURABLE_SQLITE_SYNC}`);
    db.exec(`CREATE TABLE IF NOT EXISTS "_migrations" ("name" TEXT PRIMARY KEY, "appliedAt" TEXT NOT NULL)`);
    const applied: string[] = [];
    const run = db.transaction(() => {
      const done = new Set(db.prepare(`SELECT "name" FROM "_migrations"`).pluck().all() as string[]);
      for (const m of migrationsFor("sqlite")) {
        if (done.has(m.name)) continue;
        db.exec(m.sql);
        db.prepare(`INSERT INTO "_migrations" ("name", "appliedAt") VALUES (?, ?)`).run(m.name, new Date().toISOString());
        applied.push(m.name);
      }
    });
    run.immediate();
    return applied;
  } finally {
    db.close();
  }
}

async function migratePostgres(url: string): Promise<string[]> {
  const schema = postgresSchema(url);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK_KEY]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await client.query(`SET LOCAL search_path TO "${schema}"`);
    await client.query(`CREATE TABLE IF NOT EXISTS "_migrations" ("name" TEXT PRIMARY KEY, "appliedAt" TIMESTAMPTZ NOT NULL)`);
    const done = new Set((await client.query(`SELECT "name" FROM "_migrations"`)).rows.map((r) => r.name as string));
    const applied: string[] = [];
    for (const m of migrationsFor("postgresql")) {
      if (done.has(m.name)) continue;
      await client.query(m.sql);
      await client.query(`INSERT INTO "_migrations" ("name", "appliedAt") VALUES ($1, now())`, [m.name]);
      applied.push(m.name);
    }
    await client.query("COMMIT");
    return applied;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
}
