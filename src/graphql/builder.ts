// Only configures the builder. Each module's <resource>.graphql.ts defines its types and the fields
// that return them; schema.ts imports those and builds the schema.
import SchemaBuilder from "@pothos/core";
import PrismaPlugin from "@pothos/plugin-prisma";
import RelayPlugin from "@pothos/plugin-relay";
import type PrismaTypes from "../generated/pothos-types.ts";
import { getDatamodel } from "../generated/pothos-types.ts";
import type { GraphQLContext } from "./context.ts";

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  PrismaTypes: PrismaTypes;
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    Metadata: { Input: Record<string, string>; Output: Record<string, string> };
  };
}>({
  plugins: [PrismaPlugin, RelayPlugin],
  defaultFieldNullability: false,
  prisma: {
    client: (ctx) => ctx.deps.db,
    dmmf: getDatamodel(),
  },
  relay: { clientMutationId: "omit", cursorType: "String" },
});

builder.queryType({});
builder.mutationType({});

builder.scalarType("DateTime", {
  description: "ISO 8601 date-time",
  serialize: (value) => value.toISOString(),
  parseValue: (value) => {
    const date = new Date(String(value));
    if (Number.isNaN(date.getTime())) throw new TypeError("DateTime must be an ISO 8601 date-time");
    return date;
  },
});

builder.scalarType("Metadata", {
  description: "An object whose values are all strings (at most 50 keys)",
  serialize: (value) => value,
  // Checked by the resource's zod schema, the same one REST uses.
  parseValue: (value) => value as Record<string, string>,
});
