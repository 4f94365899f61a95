// Imports every resource's GraphQL definitions, then builds the schema. Nothing else.
import { lexicographicSortSchema, printSchema } from "graphql";
import { builder } from "./builder.ts";
import "../modules/payments/payments.graphql.ts";
import "../modules/customers/customers.graphql.ts";

export const schema = builder.toSchema();

/** What schema.graphql holds; a test fails when the committed file drifts from it. */
export const printedSchema = () => `${printSchema(lexicographicSortSchema(schema))}\n`;
