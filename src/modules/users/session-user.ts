// The dashboard user behind a call, for what only a session can do (an API key has no user).
import type { Scope } from "../../context.ts";
import { badRequest } from "../../errors.ts";

/** The caller's session principal, or BAD_REQUEST for an API key. */
export const sessionOf = (scope: Scope) => {
  if (scope.principal.kind !== "user") throw badRequest("Only a dashboard session can do this; an API key has no user");
  return scope.principal;
};
