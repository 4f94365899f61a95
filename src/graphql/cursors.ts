// Every connection pages by id, so its cursors are @pothos/plugin-prisma's `GPC:S:<id>`. The plugin
// reads other tags too (dates, JSON, numbers) and hands what it read to the database, which fails on
// nonsense (an unexpected error, masked), and it echoes an unreadable cursor whole in its error. So
// `after` and `before` are checked here before a connection's resolver runs: anything but an id
// cursor is BAD_USER_INPUT, with a message that does not repeat the input.
import { type GraphQLSchema, defaultFieldResolver, isObjectType } from "graphql";
import { DomainError } from "../errors.ts";

const ID_CURSOR = /^GPC:S:[\x21-\x7e]{1,200}$/;

function checkCursor(name: string, cursor: unknown) {
  const decoded = typeof cursor === "string" && cursor.length <= 300 ? Buffer.from(cursor, "base64").toString("latin1") : "";
  if (!ID_CURSOR.test(decoded)) throw new DomainError("BAD_USER_INPUT", 400, `${name} is not a cursor of this list`);
}

/** Wraps the resolver of every connection field (one with `first` and `after`) with the cursor check. */
export function checkConnectionCursors(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith("__")) continue;
    for (const field of Object.values(type.getFields())) {
      const names = field.args.map((arg) => arg.name);
      if (!names.includes("first") || !names.includes("after")) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (source, args, context, info) => {
        for (const name of ["after", "before"]) if (args[name] != null) checkCursor(name, args[name]);
        return resolve(source, args, context, info);
      };
    }
  }
  return schema;
}
