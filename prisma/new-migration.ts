// Writes the SQL of a new migration for each dialect: `npm run db:new-migration -- <name>`.
// Each migration keeps a copy of the schema it leads to, so the next one is diffed from it without a
// database (the Prisma CLI cannot migrate PostgreSQL offline; src/db/migrate.ts applies the SQL).
// `--check` fails when models.prisma has changes that no migration carries.
// A hand-written migration (SQL only, no schema.prisma: a table Prisma does not model, such as the
// rate limiter's) takes its place in the numbering and leaves the models as they were.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { dialects, renderSchema, schemaPath } from "./build-schemas.ts";

const prismaDir = dirname(fileURLToPath(import.meta.url));

function migrations(dialect: string): string[] {
  const dir = join(prismaDir, "migrations", dialect);
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

const snapshotOf = (dialect: string, migration: string) => join(prismaDir, "migrations", dialect, migration, "schema.prisma");

/** A schema as far as the database sees it: generator blocks make code, not tables. */
const withoutGenerators = (schema: string) => schema.replace(/^generator \w+ \{[\s\S]*?^\}\n/gm, "").replace(/\n{3,}/g, "\n\n");

const check = process.argv.includes("--check");
const name = process.argv.slice(2).find((a) => !a.startsWith("--"));
if (!check && !/^[a-z0-9_]+$/.test(name ?? "")) {
  console.error("usage: npm run db:new-migration -- <name in snake_case>");
  process.exit(1);
}

// One number for the next migration of every dialect, past the highest of any: a hand-written one
// may exist in one dialect only (0003 and 0005 are PostgreSQL's), and the numbers stay aligned.
const highest = Math.max(0, ...dialects.flatMap((dialect) => migrations(dialect).map((m) => Number(m.slice(0, 4)))));
const number = String(highest + 1).padStart(4, "0");

let pending = false;
for (const dialect of dialects) {
  const all = migrations(dialect);
  const modelled = all.findLast((m) => existsSync(snapshotOf(dialect, m)));
  const snapshot = modelled ? snapshotOf(dialect, modelled) : undefined;
  const current = renderSchema(dialect);
  if (snapshot && withoutGenerators(readFileSync(snapshot, "utf8")) === withoutGenerators(current)) continue;
  if (check) {
    console.error(`${dialect}: models.prisma has changes with no migration: npm run db:new-migration -- <name>`);
    pending = true;
    continue;
  }
  const from = snapshot ? ["--from-schema-datamodel", snapshot] : ["--from-empty"];
  const anyFile = join(prismaDir, "models.prisma");
  const sql = execFileSync(
    "npx",
    ["prisma", "migrate", "diff", "--config", join(prismaDir, "prisma.config.ts"), ...from,
      "--to-schema-datamodel", schemaPath(dialect), "--script"],
    { encoding: "utf8", env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: anyFile, PRISMA_QUERY_ENGINE_LIBRARY: anyFile, PRISMA_HIDE_UPDATE_MESSAGE: "1" } },
  );
  const dir = join(prismaDir, "migrations", dialect, `${number}_${name}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "migration.sql"), sql);
  writeFileSync(join(dir, "schema.prisma"), current);
  console.log(`wrote ${dir}`);
}
if (pending) process.exit(1);
