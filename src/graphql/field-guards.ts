// Checks that run on a field's arguments before its resolver (and subscribe) does, installed once on
// the built schema so that /graphql and /graphql/stream, and every module's fields, get them alike.
import {
  type GraphQLField,
  type GraphQLFieldConfig,
  type GraphQLSchema,
  defaultFieldResolver,
  isObjectType,
} from "graphql";
import { refuseUnstorableInput } from "../shared/validation.ts";

type ArgumentCheck = (args: Record<string, unknown>) => void;

/** `checkFor(field)` gives the checks of a field (none: left as it is); they throw to refuse. */
function guardArguments(schema: GraphQLSchema, checkFor: (field: GraphQLField<unknown, unknown>) => ArgumentCheck[]): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith("__")) continue;
    for (const field of Object.values(type.getFields())) {
      const checks = checkFor(field);
      if (checks.length === 0) continue;
      const check = (args: Record<string, unknown>) => checks.forEach((c) => c(args));
      // The field objects are the schema's own: replacing their functions is how the guard applies.
      const config = field as unknown as Pick<GraphQLFieldConfig<unknown, unknown>, "resolve" | "subscribe">;
      const resolve = config.resolve ?? defaultFieldResolver;
      config.resolve = (source, args, context, info) => {
        check(args);
        return resolve(source, args, context, info);
      };
      const subscribe = config.subscribe;
      if (subscribe) {
        config.subscribe = (source, args, context, info) => {
          check(args);
          return subscribe(source, args, context, info);
        };
      }
    }
  }
  return schema;
}

/**
 * GraphQL's side of refuseUnstorableInput (src/shared/validation.ts): an id, a filter or an
 * idempotency key holding NUL, or a Metadata value nested a thousand deep, is a BAD_REQUEST naming
 * the argument rather than a database error.
 */
const refuseUnstorable: ArgumentCheck = (args) => refuseUnstorableInput(args, "arguments");

/** Installs every argument check on the schema's fields. (Connections read their cursors in connection.ts.) */
export const guardFieldArguments = (schema: GraphQLSchema) => guardArguments(schema, (field) => (field.args.length === 0 ? [] : [refuseUnstorable]));
