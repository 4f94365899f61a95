// Makes the Prisma CLI use its WebAssembly schema engine (no native binary download, works offline).
// The CLI is used only for `generate` and `migrate diff`; migrations are applied by src/db/migrate.ts.
import { defineConfig } from "prisma/config";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  adapter: async () => new PrismaBetterSQLite3({ url: ":memory:" }),
});
