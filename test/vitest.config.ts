// Every database test runs twice: once on SQLite, once on PostgreSQL (database `test`, a fresh schema
// per test file). Tests that touch no database (*.nodb.test.ts) run once.
import { defineConfig } from "vitest/config";

const root = new URL("..", import.meta.url).pathname;
const dbTests = { include: ["test/**/*.test.ts"], exclude: ["test/**/*.nodb.test.ts", "**/node_modules/**"] };

export default defineConfig({
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
