import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { printedSchema } from "../src/graphql/schema.ts";

it("schema.graphql is the schema printed from the builder (run `npm run schema:print` after changing GraphQL)", () => {
  const committed = readFileSync(new URL("../schema.graphql", import.meta.url), "utf8");
  expect(committed).toBe(printedSchema());
});
