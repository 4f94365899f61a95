// GraphQL's side of refuseUnstorableInput (src/shared/validation.ts): every field that takes
// arguments checks them before its resolver runs, so an id, a filter or an idempotency key holding
// NUL, or a Metadata value nested a thousand deep, is a BAD_REQUEST naming the argument rather than
// a database error. Wrapping the built schema covers /graphql and /graphql/stream alike, and every
// field of every module without each one remembering to.
import { type GraphQLFieldConfig, type GraphQLSchema, defaultFieldResolver, isObjectType } from "graphql";
import { refuseUnstorableInput } from "../shared/validation.ts";

export function refuseUnstorableArguments(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith("__")) continue;
    for (const field of Object.values(type.getFields())) {
      if (field.args.length === 0) continue;
      // The field objects are the schema's own: replacing their functions is how the guard applies.
      const config = field as unknown as Pick<GraphQLFieldConfig<unknown, unknown>, "resolve" | "subscribe">;
      const resolve = config.resolve ?? defaultFieldResolver;
      config.resolve = (source, args, context, info) => {
        refuseUnstorableInput(args, "arguments");
        return resolve(source, args, context, info);
      };
      const subscribe = config.subscribe;
      if (subscribe) {
        config.subscribe = (source, args, context, info) => {
          refuseUnstorableInput(args, "arguments");
          return subscribe(source, args, context, info);
        };
      }
    }
  }
  return schema;
}
