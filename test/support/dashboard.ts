// A dashboard user as a browser is one: signed in through the login mutation, then sending the
// session cookie with every GraphQL request (and Service-Environment when it picks one).
import type { Environment } from "../../src/context.ts";
import { createUser } from "../../src/modules/users/users.service.ts";
import type { Role } from "../../src/modules/users/roles.ts";
import type { TestApp } from "./test-app.ts";

export const LOGIN = `mutation($email: String!, $password: String!) { login(email: $email, password: $password) { user { id email role } organization { id } environment } }`;

export interface GraphQLAnswer {
  status: number;
  headers: Headers;
  body: any;
}

export async function postGraphQL(t: TestApp, body: unknown, headers: Record<string, string> = {}, path = "/graphql"): Promise<GraphQLAnswer> {
  const response = await fetch(`${t.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

export interface DashboardClient {
  userId: string;
  email: string;
  password: string;
  /** the session cookie as the browser sends it back (name=value) */
  cookie: string;
  graphql(query: string, variables?: Record<string, unknown>, options?: { environment?: Environment | string; headers?: Record<string, string> }): Promise<GraphQLAnswer>;
}

let counter = 0;
export const uniqueEmail = (label = "user") => `${label}-${Date.now()}-${counter++}@example.test`;

/** Creates a user of the organization with `role` and signs them in. */
export async function signedInUser(t: TestApp, organizationId: string, role: Role): Promise<DashboardClient> {
  const email = uniqueEmail(role);
  const password = `pw-${role}-correct-horse`;
  const { user } = await createUser(t.deps, { organizationId, email, role, password });
  const answer = await postGraphQL(t, { query: LOGIN, variables: { email, password } });
  if (answer.body.errors) throw new Error(`login failed: ${JSON.stringify(answer.body.errors)}`);
  const cookie = answer.headers.get("set-cookie")!.split(";")[0]!;
  return clientWithCookie(t, { userId: user.id, email, password, cookie });
}

export function clientWithCookie(t: TestApp, who: Omit<DashboardClient, "graphql">): DashboardClient {
  return {
    ...who,
    graphql: (query, variables, options = {}) =>
      postGraphQL(t, { query, variables }, { cookie: who.cookie, ...(options.environment && { "service-environment": options.environment }), ...options.headers }),
  };
}
