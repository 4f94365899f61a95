// A dashboard user's role, and what each role may do. The one table every GraphQL field's guard
// reads (src/graphql/builder.ts, scope-auth): owner and admin do everything (an admin cannot
// change owners), a developer manages API keys and webhooks and reads the rest, a viewer reads.
export const ROLES = ["owner", "admin", "developer", "viewer"] as const;
export type Role = (typeof ROLES)[number];

export const isRole = (value: string): value is Role => (ROLES as readonly string[]).includes(value);

/** What a field needs of its caller: to read, to manage keys and webhooks, to run the business, to manage the team. */
export type Permission = "read" | "developer" | "write" | "team";

const GRANTS: Record<Role, readonly Permission[]> = {
  owner: ["read", "developer", "write", "team"],
  admin: ["read", "developer", "write", "team"],
  developer: ["read", "developer"],
  viewer: ["read"],
};

export const roleAllows = (role: Role, permission: Permission) => GRANTS[role].includes(permission);
