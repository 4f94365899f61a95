// Every database test runs twice: once on SQLite, once on PostgreSQL (database `test`, a fresh schema
// per test file). Tests that touch no database (*.nodb.test.ts) run once.
import { defineConfig } from "vitest/config";

const root = new URL("..", import.meta.url).pathname;
const dbTests = { include: ["test/**/*.test.ts"], exclude: ["test/**/*.nodb.test.ts", "**/node_modules/**"] };

export default defineConfig({
  // graphql 16 has no "exports" map: Node loads its CommonJS build for the libraries (Pothos, yoga),
  // while Vite would pick the ESM build for our sources, and two copies of graphql refuse each
  // other's types. Make our sources use the same build as the libraries, as they do in production.
  resolve: { alias: [{ find: /^graphql$/, replacement: "graphql/index.js" }] },
  test: {
    root,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: "sqlite", ...dbTests, env: { TEST_DIALECT: "sqlite" } } },
      { extends: true, test: { name: "postgresql", ...dbTests, env: { TEST_DIALECT: "postgresql" } } },
      { extends: true, test: { name: "nodb", include: ["test/**/*.nodb.test.ts"] } },
    ],
  },
});
