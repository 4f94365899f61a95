// A dashboard user's role, and what each role may do. The one table every GraphQL field's guard
// (src/graphql/builder.ts, scope-auth) and every REST route (src/rest/api.ts) reads: owner and
// admin do everything (an admin cannot change owners), a developer manages API keys and webhooks
// and reads the rest, a viewer reads. An API key has a role too (admin or developer, at most its
// creator's) and may do what a session of that role may, but for what only a person may do.
export const ROLES = ["owner", "admin", "developer", "viewer"] as const;
export type Role = (typeof ROLES)[number];

export const isRole = (value: string): value is Role => (ROLES as readonly string[]).includes(value);

/** The roles an API key can have: an owner's keys are admin keys (a key never manages owners). */
export const KEY_ROLES = ["admin", "developer"] as const;
export type KeyRole = (typeof KEY_ROLES)[number];

export const isKeyRole = (value: string): value is KeyRole => (KEY_ROLES as readonly string[]).includes(value);

/**
 * What a field needs of its caller: to read, to read the team (its people), to manage keys and
 * webhooks, to run the business, to manage the team, to change where money goes (the settlement
 * wallet, enabled assets, pricing rates).
 */
export type Permission = "read" | "readTeam" | "developer" | "write" | "team" | "money";

const GRANTS: Record<Role, readonly Permission[]> = {
  owner: ["read", "readTeam", "developer", "write", "team", "money"],
  admin: ["read", "readTeam", "developer", "write", "team", "money"],
  developer: ["read", "readTeam", "developer"],
  viewer: ["read", "readTeam"],
};

/**
 * What no API key may do, whatever its role: the team is people (their emails, roles and sign-in),
 * not what an integration needs; and where money goes is decided by a person in the dashboard who
 * proves again to be who they are, never by a key that may have leaked.
 */
const WITHHELD_FROM_KEYS: readonly Permission[] = ["readTeam", "team", "money"];

export const roleAllows = (role: Role, permission: Permission) => GRANTS[role].includes(permission);

export const keyAllows = (role: KeyRole, permission: Permission) => !WITHHELD_FROM_KEYS.includes(permission) && roleAllows(role, permission);

/** Why an API key of `role` is refused `what` (a field or an operation), in words that say what to do instead. */
export function keyRefusal(role: KeyRole, permission: Permission, what: string): string {
  if (permission === "money") return `An API key may not use ${what}: where money goes is changed in the dashboard, by a user who gives their password again`;
  if (WITHHELD_FROM_KEYS.includes(permission)) return `An API key may not use ${what}: the team is managed and seen in the dashboard only`;
  return `An API key of role ${role} may not use ${what}`;
}

/** The key roles a creator of `role` may give: those that grant nothing the creator lacks. */
export const keyRolesUpTo = (role: Role): KeyRole[] => KEY_ROLES.filter((keyRole) => GRANTS[keyRole].every((permission) => roleAllows(role, permission)));
