// Who is signed in, and in which environment they work. The environment is the tab's choice
// (sessionStorage), sent as a header on every request; switching it makes a fresh GraphQL client.
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Environment } from "./graphql.ts";

export type Role = "owner" | "admin" | "developer" | "viewer";

export interface Viewer {
  user: { id: string; email: string; role: Role; twoFactorEnabled: boolean };
  organization: { id: string; name: string };
  /** the organization requires two-factor sign-in and this user has none yet: setting it up is all the session may do */
  twoFactorSetupRequired: boolean;
}

export interface Session {
  viewer: Viewer;
  environment: Environment;
  setEnvironment(environment: Environment): void;
  signOut(): Promise<void>;
  /** reads the viewer again (after a change to the user's own account) */
  refresh(): void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error("useSession outside a signed-in dashboard");
  return session;
}

/** What a role may do, as the server enforces it (the UI only hides what would be refused). */
export const can = {
  manage: (role: Role) => role === "owner" || role === "admin",
  develop: (role: Role) => role !== "viewer",
  write: (role: Role) => role === "owner" || role === "admin",
};

const STORAGE_KEY = "dashboard-environment";
export const storedEnvironment = (): Environment => (sessionStorage.getItem(STORAGE_KEY) === "production" ? "production" : "sandbox");
export const storeEnvironment = (environment: Environment) => sessionStorage.setItem(STORAGE_KEY, environment);
