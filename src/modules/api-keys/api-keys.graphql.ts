// API keys for the dashboard (Developers, API keys): create (the key shown once), list, revoke.
// A caller acts in its own environment only: a sandbox key cannot make or see production keys.
import type { Environment } from "../../context.ts";
import { builder, needs } from "../../graphql/builder.ts";
import { requireService } from "../../graphql/context.ts";
import { EnvironmentEnum } from "../../graphql/shared-types.ts";
import { KEY_ROLES, type KeyRole } from "../users/roles.ts";
import { apiKeysOfScope, createApiKeyInScope, revokeApiKeyInScope, revokeApiKeysOfRemovedUsers } from "./api-keys.service.ts";

type ApiKeyView = Awaited<ReturnType<typeof apiKeysOfScope>>[number];

const ApiKeyRoleEnum = builder.enumType("ApiKeyRole", {
  description: "What a key may do: what a dashboard session of that role may, except seeing or managing the team and changing where money goes",
  values: KEY_ROLES,
});

const ApiKeyType = builder.objectRef<ApiKeyView>("ApiKey").implement({
  description: "An API key as stored: its display prefix, never the key or its hash",
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name", { nullable: true }),
    environment: t.field({ type: EnvironmentEnum, resolve: (k) => k.environment as Environment }),
    prefix: t.exposeString("prefix", { description: "the key's first 16 characters" }),
    role: t.field({ type: ApiKeyRoleEnum, resolve: (k) => k.role as KeyRole }),
    creatorRemoved: t.exposeBoolean("creatorRemoved", {
      description: "the user who made it has been removed from the team: the key still works until revoked (revokeApiKeysOfRemovedUsers)",
    }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    lastUsedAt: t.expose("lastUsedAt", { type: "DateTime", nullable: true, description: "to the minute" }),
    revokedAt: t.expose("revokedAt", { type: "DateTime", nullable: true }),
  }),
});

const CreatedApiKey = builder.objectRef<{ key: string; apiKey: ApiKeyView }>("CreatedApiKey").implement({
  fields: (t) => ({
    key: t.exposeString("key", { description: "the full key: shown this once, only its hash is stored" }),
    apiKey: t.field({ type: ApiKeyType, resolve: (created) => created.apiKey }),
  }),
});

builder.queryFields((t) => ({
  apiKeys: t.field({
    type: [ApiKeyType],
    description: "The keys of the caller's organization and environment, oldest first, revoked ones included",
    resolve: (_root, _args, ctx) => apiKeysOfScope(requireService(ctx)),
  }),
}));

builder.mutationFields((t) => ({
  createApiKey: t.field({
    ...needs("developer"),
    type: CreatedApiKey,
    description:
      "A new key of the caller's environment (a sandbox key cannot create a production key), of a role at most the caller's (FORBIDDEN naming role otherwise). A production key asks a session user for the password again (and the code with two-factor sign-in on), and mails every owner",
    args: {
      environment: t.arg({ type: EnvironmentEnum, required: true }),
      name: t.arg.string(),
      role: t.arg({ type: ApiKeyRoleEnum, description: "at most the caller's role (a developer makes developer keys); absent: the highest the caller may give" }),
      password: t.arg.string({ description: "production, with a session: the caller's password, again" }),
      code: t.arg.string({ description: "production, with a session and two-factor sign-in on: the app's code or a recovery code" }),
    },
    resolve: (_root, args, ctx) => createApiKeyInScope(requireService(ctx), ctx.deps.loginThrottle, { ...args, address: ctx.clientAddress }),
  }),
  revokeApiKey: t.field({
    ...needs("developer"),
    type: ApiKeyType,
    description: "Requests with the key are refused from then on (the caller's own key included)",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => revokeApiKeyInScope(requireService(ctx), String(args.id)),
  }),
  revokeApiKeysOfRemovedUsers: t.field({
    ...needs("developer"),
    type: [ApiKeyType],
    description: "Revokes every key of the caller's environment whose creator has been removed from the team; answers the keys revoked",
    resolve: (_root, _args, ctx) => revokeApiKeysOfRemovedUsers(requireService(ctx)),
  }),
}));
