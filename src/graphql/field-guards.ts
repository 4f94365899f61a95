// Checks that run on a field's arguments before its resolver (and subscribe) does, installed once on
// the built schema so that /graphql and /graphql/stream, and every module's fields, get them alike.
import {
  type GraphQLField,
  type GraphQLFieldConfig,
  type GraphQLSchema,
  defaultFieldResolver,
  isObjectType,
} from "graphql";
import { DomainError } from "../errors.ts";
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

// Every connection pages by id, so its cursors are @pothos/plugin-prisma's `GPC:S:<id>`. The plugin
// reads other tags too (dates, JSON, numbers) and hands what it read to the database, which fails on
// nonsense (an unexpected error, masked), and it echoes an unreadable cursor whole in its error. So
// anything but an id cursor is BAD_USER_INPUT, with a message that does not repeat the input.
const ID_CURSOR = /^GPC:S:[\x21-\x7e]{1,200}$/;

const checkCursors: ArgumentCheck = (args) => {
  for (const name of ["after", "before"]) {
    const cursor = args[name];
    if (cursor == null) continue;
    const decoded = typeof cursor === "string" && cursor.length <= 300 ? Buffer.from(cursor, "base64").toString("latin1") : "";
    if (!ID_CURSOR.test(decoded)) throw new DomainError("BAD_USER_INPUT", `${name} is not a cursor of this list`);
  }
};

const isConnection = (field: GraphQLField<unknown, unknown>) =>
  field.args.some((a) => a.name === "first") && field.args.some((a) => a.name === "after");

/** Installs every argument check on the schema's fields. */
export const guardFieldArguments = (schema: GraphQLSchema) =>
  guardArguments(schema, (field) =>
    field.args.length === 0 ? [] : [refuseUnstorable, ...(isConnection(field) ? [checkCursors] : [])],
  );
