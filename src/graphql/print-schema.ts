// `npm run schema:print` writes schema.graphql from the builder.
import { writeFileSync } from "node:fs";
import { printedSchema } from "./schema.ts";

writeFileSync(new URL("../../schema.graphql", import.meta.url), printedSchema());
console.log("schema.graphql written");
