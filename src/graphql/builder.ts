// Only configures the builder. Each module's <resource>.graphql.ts defines its types and the fields
// that return them; schema.ts imports those and builds the schema.
import SchemaBuilder from "@pothos/core";
import { GraphQLError } from "graphql";
import PrismaPlugin from "@pothos/plugin-prisma";
import RelayPlugin from "@pothos/plugin-relay";
import ScopeAuthPlugin, { type AuthFailure, AuthScopeFailureType } from "@pothos/plugin-scope-auth";
import type { Scope } from "../context.ts";
import { forbidden } from "../errors.ts";
import { type Permission, keyAllows, keyRefusal, roleAllows } from "../modules/users/roles.ts";
import type PrismaTypes from "../generated/pothos-types.ts";
import { getDatamodel } from "../generated/pothos-types.ts";
import type { GraphQLContext } from "./context.ts";

export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  PrismaTypes: PrismaTypes;
  AuthScopes: { may: Permission };
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    Metadata: { Input: Record<string, string>; Output: Record<string, string> };
  };
}>({
  // scope-auth first, so that its check runs before any other plugin's resolver wrapping.
  plugins: [ScopeAuthPlugin, PrismaPlugin, RelayPlugin],
  scopeAuth: {
    authorizeOnSubscribe: true,
    authScopes: (ctx) => ({ may: (permission: Permission) => callerMay(ctx.scope, permission) }),
    unauthorizedError: (_parent, ctx, info, result) => {
      const principal = ctx.scope?.principal;
      if (principal?.kind === "user" && principal.mustSetUpTwoFactor) {
        return forbidden("Your organization requires two-factor sign-in: set yours up first (beginTwoFactorSetup, then confirmTwoFactor)");
      }
      if (principal?.kind === "key") return forbidden(keyRefusal(principal.role, refusedPermission(result.failure) ?? "write", info.fieldName));
      return forbidden(`The role ${principal?.role} may not use ${info.fieldName}`);
    },
  },
  defaultFieldNullability: false,
  prisma: {
    client: (ctx) => ctx.deps.db,
    dmmf: getDatamodel(),
  },
  relay: { clientMutationId: "omit", cursorType: "String" },
});

// Roles are enforced here, on every root field (nested fields are reads, which every role may do):
// a query or subscription needs "read", a mutation "write", unless the field says otherwise with
// needs(...) or PUBLIC_FIELD. What each role is granted is src/modules/users/roles.ts.
builder.queryType({ authScopes: { may: "read" } });
builder.mutationType({ authScopes: { may: "write" } });
builder.subscriptionType({ authScopes: { may: "read" } });

builder.scalarType("DateTime", {
  description: "ISO 8601 date-time",
  serialize: (value) => value.toISOString(),
  // A GraphQLError: graphql-js then answers it as the request's own error naming the argument or
  // variable (400), where any other error would be an unexpected one (INTERNAL).
  parseValue: (value) => {
    const date = typeof value === "string" ? new Date(value) : new Date(Number.NaN);
    if (Number.isNaN(date.getTime())) throw new GraphQLError("DateTime must be an ISO 8601 date-time");
    return date;
  },
});

builder.scalarType("Metadata", {
  description: "An object whose values are all strings (at most 50 keys)",
  serialize: (value) => value,
  // Checked by the resource's zod schema, the same one REST uses.
  parseValue: (value) => value as Record<string, string>,
});

/**
 * Whether the caller may do what needs `permission`: an API key what its role grants a key, a user
 * what their role grants. A session whose organization requires two-factor sign-in, which its user
 * has not set up, may do nothing that needs a permission. Without a credential the check passes:
 * authentication is the resolver's (requireService answers UNAUTHENTICATED), and the checkout's
 * public fields need none.
 */
function callerMay(scope: Scope | null, permission: Permission): boolean {
  if (!scope) return true;
  if (scope.principal.kind === "key") return keyAllows(scope.principal.role, permission);
  // Until then the session may only use the public fields: the viewer, sign out, set two-factor up.
  if (scope.principal.mustSetUpTwoFactor) return false;
  return roleAllows(scope.principal.role, permission);
}

/** The permission a refused field needed (its `may` scope), found in scope-auth's account of the refusal. */
function refusedPermission(failure: AuthFailure): Permission | null {
  if (failure.kind === AuthScopeFailureType.AuthScope && failure.scope === "may") return failure.parameter as Permission;
  if (failure.kind === AuthScopeFailureType.AnyAuthScopes || failure.kind === AuthScopeFailureType.AllAuthScopes) {
    for (const inner of failure.failures) {
      const found = refusedPermission(inner);
      if (found) return found;
    }
  }
  return null;
}

/** Field options: the field needs `permission` instead of its root type's. */
export const needs = (permission: Permission) => ({ authScopes: { may: permission }, skipTypeScopes: true }) as const;
/** Field options: anyone may call it, with or without a credential or role (the checkout's payer fields, login). */
export const PUBLIC_FIELD = { skipTypeScopes: true } as const;
